/**
 * The service's own absolute URLs become paths in pages, so a shop opened through another host name
 * (a proxy, another machine) still shows its images; anything else is left alone.
 */
import { expect } from 'chai';
import { ownUrlAsPath } from '../../web/own-url';

describe('own URLs in pages (ownUrlAsPath)', () => {
  const base = 'https://shop.example.org';

  it('turns an address of PUBLIC_BASE_URL into its path, query and fragment', () => {
    expect(ownUrlAsPath('https://shop.example.org/api/v1/sandbox/images/3?v=1#x', base)).to.equal('/api/v1/sandbox/images/3?v=1#x');
    expect(ownUrlAsPath('https://SHOP.example.org:443/a/b', base)).to.equal('/a/b');
  });

  it('turns a loopback address under /api/v1/ (written with the localhost default) into its path', () => {
    expect(ownUrlAsPath('http://localhost:3000/api/v1/sandbox/images/7', base)).to.equal('/api/v1/sandbox/images/7');
    expect(ownUrlAsPath('http://127.0.0.1:4000/api/v1/sandbox/images/7', base)).to.equal('/api/v1/sandbox/images/7');
    expect(ownUrlAsPath('http://[::1]:3000/api/v1/x', base)).to.equal('/api/v1/x');
  });

  it('leaves other hosts, other schemes, other loopback paths and non-strings unchanged', () => {
    expect(ownUrlAsPath('https://cdn.example.com/a.jpg', base)).to.equal('https://cdn.example.com/a.jpg');
    expect(ownUrlAsPath('http://shop.example.org/a.jpg', base)).to.equal('http://shop.example.org/a.jpg');
    expect(ownUrlAsPath('http://localhost:3000/other/a.jpg', base)).to.equal('http://localhost:3000/other/a.jpg');
    expect(ownUrlAsPath('/already/a/path.jpg', base)).to.equal('/already/a/path.jpg');
    expect(ownUrlAsPath('data:image/png;base64,AAAA', base)).to.equal('data:image/png;base64,AAAA');
    expect(ownUrlAsPath(null, base)).to.equal(null);
    expect(ownUrlAsPath('http://[bad', base)).to.equal('http://[bad');
  });
});
