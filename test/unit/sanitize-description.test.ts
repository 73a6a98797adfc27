/**
 * sanitizeDescription skips sanitize-html for plain text and plain `<p>` paragraphs; what it returns
 * must always be exactly what sanitize-html would return, and anything else still goes through it.
 */
import { expect } from 'chai';
import sanitizeHtml from 'sanitize-html';
import { SANITIZE, sanitizeDescription } from '../../domain/product-rules';

const reference = (html: string): string => sanitizeHtml(html, SANITIZE);

describe('sanitizeDescription', () => {
  const samples = [
    'plain text',
    'it\'s "quoted" — é ü 日本 🙂',
    '  leading and trailing  \n',
    '<p>A cotton shirt in red, made in Italy.</p>',
    '<p>one</p><p>two</p>',
    ' <p>one</p>\n\n<p>two</p> ',
    '<p></p>',
    'a & b',
    'x > y',
    '1 < 2',
    '<p>a &amp; b</p>',
    '<p>unclosed',
    '<p>a</p>tail',
    '<P>upper</P>',
    '<p class="x">attributed</p>',
    '<p><script>alert(1)</script></p>',
    '<script>alert(1)</script>',
    '<p>x</p><img src="javascript:alert(1)">',
    '<br>',
    '<p onclick="x()">y</p>',
    '<a href="https://example.test/" onclick="x()">link</a>',
  ];

  it('answers exactly what sanitize-html answers', () => {
    for (const html of samples) expect(sanitizeDescription(html), html).to.equal(reference(html));
  });

  it('still removes scripts, handlers and unsafe links', () => {
    expect(sanitizeDescription('<p>ok</p><script>alert(1)</script>')).to.equal('<p>ok</p>');
    expect(sanitizeDescription('<p onclick="x()">y</p>')).to.equal('<p>y</p>');
    expect(sanitizeDescription('<a href="javascript:alert(1)">z</a>')).to.equal('<a>z</a>');
  });

  it('answers an empty string for nothing', () => {
    expect(sanitizeDescription(undefined)).to.equal('');
    expect(sanitizeDescription('')).to.equal('');
  });
});
