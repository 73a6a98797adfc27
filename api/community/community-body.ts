/**
 * Bodies of discussions and comments: Markdown (the default) or HTML, stored as sanitised HTML.
 *
 * Markdown is rendered by the small subset below (paragraphs, line breaks, headings, block quotes,
 * lists, fenced and inline code, bold, italic, links, rules); everything else is text, so HTML
 * written inside Markdown is shown escaped, never interpreted. HTML bodies keep their markup. Both
 * then go through the sanitiser of content pages (api/content/content-html.ts: no script, no event
 * handler attributes, no javascript: URLs), and every link gets rel="nofollow ugc noopener noreferrer"
 * so spam links earn nothing.
 */
import sanitizeHtml from 'sanitize-html';
import { sanitiseContentHtml } from '../content/content-html';

export type BodyFormat = 'markdown' | 'html';

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A link target Markdown may produce: http(s), mailto, a relative path or a fragment. */
const SAFE_URL = /^(?:https?:\/\/|mailto:|\/(?!\/)|#)/i;

/** Bold and italic of plain (already escaped) text. */
const emphasis = (text: string): string =>
  text
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/__([^_]+)__/g, '<strong>$1</strong>')
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
    .replace(/(^|[^\w_])_([^_\s][^_]*)_(?!\w)/g, '$1<em>$2</em>');

/** Code spans and links, which emphasis must not reach into. */
const CODE_OR_LINK = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** Inline Markdown of one (already escaped) line: code spans, links, bold and italic. */
function inline(escaped: string): string {
  let out = '';
  let last = 0;
  for (const match of escaped.matchAll(CODE_OR_LINK)) {
    out += emphasis(escaped.slice(last, match.index));
    last = match.index + match[0].length;
    const [, code, label, href] = match;
    if (code !== undefined) {
      out += `<code>${code}</code>`;
      continue;
    }
    // href is escaped text; the entity &amp; is the only one a URL normally holds.
    const url = href!.replace(/&amp;/g, '&');
    out += SAFE_URL.test(url) ? `<a href="${escapeHtml(url)}">${emphasis(label!)}</a>` : emphasis(label!);
  }
  return out + emphasis(escaped.slice(last));
}

const HEADING = /^(#{1,6})\s+(.*)$/;
const RULE = /^(?:-{3,}|\*{3,}|_{3,})\s*$/;
const BULLET = /^[-*+]\s+(.*)$/;
const NUMBERED = /^\d{1,9}[.)]\s+(.*)$/;
const QUOTE = /^>\s?(.*)$/;

/** Renders blocks of lines (no fenced code inside: renderMarkdown takes those out first). */
function blocks(lines: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level}>${inline(escapeHtml(heading[2]!.trim()))}</h${level}>`);
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push('<hr>');
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) quoted.push(QUOTE.exec(lines[i++]!)![1]!);
      // One level: a quote inside a quote is text.
      out.push(`<blockquote>${paragraphs(quoted)}</blockquote>`);
      continue;
    }
    const list = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : undefined;
    if (list) {
      const items: string[] = [];
      while (i < lines.length && list.test(lines[i]!)) items.push(`<li>${inline(escapeHtml(list.exec(lines[i++]!)![1]!))}</li>`);
      const tag = list === BULLET ? 'ul' : 'ol';
      out.push(`<${tag}>${items.join('')}</${tag}>`);
      continue;
    }
    const paragraph: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !HEADING.test(lines[i]!) &&
      !RULE.test(lines[i]!) &&
      !QUOTE.test(lines[i]!) &&
      !BULLET.test(lines[i]!) &&
      !NUMBERED.test(lines[i]!)
    )
      paragraph.push(lines[i++]!);
    out.push(paragraphs(paragraph));
  }
  return out.join('\n');
}

/** Lines as paragraphs split at blank lines, a single line break kept as <br>. */
function paragraphs(lines: string[]): string {
  return lines
    .join('\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map(
      (p) =>
        `<p>${p
          .split('\n')
          .map((l) => inline(escapeHtml(l.trim())))
          .join('<br>')}</p>`,
    )
    .join('\n');
}

/** The HTML of a Markdown text (before sanitising): fenced code blocks verbatim (escaped), the rest as blocks. */
export function renderMarkdown(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let pending: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^```/.test(lines[i]!)) {
      pending.push(lines[i]!);
      continue;
    }
    out.push(blocks(pending));
    pending = [];
    const code: string[] = [];
    i += 1;
    while (i < lines.length && !/^```/.test(lines[i]!)) code.push(lines[i++]!);
    out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
  }
  out.push(blocks(pending));
  return out.filter((part) => part !== '').join('\n');
}

/**
 * Every link of already sanitised HTML gets rel="nofollow ugc noopener noreferrer". The sanitiser
 * writes each attribute as name="value" with any quote inside the value escaped, so the tags can be
 * rewritten safely by pattern.
 */
const withUgcLinks = (html: string): string =>
  html.replace(/<a\b([^>]*)>/g, (_tag, attributes: string) => `<a${attributes.replace(/\srel="[^"]*"/g, '')} rel="${UGC_REL}">`);
const UGC_REL = 'nofollow ugc noopener noreferrer';

const BLOCK_BOUNDARY = /<\/?(?:p|br|hr|li|h[1-6]|blockquote|pre|div|table|tr|td|th|ul|ol|dl|dd|dt|figure|figcaption|caption)\b[^>]*>/gi;

export interface SanitisedBody {
  html: string;
  /** The plain text of the body (what search matches and what decides whether anything is left). */
  text: string;
}

/** The stored form of a body written in `format`. */
export function sanitiseBody(body: string, format: BodyFormat): SanitisedBody {
  const html = withUgcLinks(sanitiseContentHtml(format === 'markdown' ? renderMarkdown(body) : body));
  // Block boundaries become spaces, so words of two paragraphs or list items stay apart.
  const text = sanitizeHtml(html.replace(BLOCK_BOUNDARY, ' '), { allowedTags: [], allowedAttributes: {} })
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return { html, text };
}
