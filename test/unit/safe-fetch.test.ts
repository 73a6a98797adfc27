/** The SSRF-safe fetcher: which addresses are public, and the fetch rules against a local HTTP server. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { checkUrl, isPublicAddress, safeFetch, SafeFetchError, type SafeFetchOptions } from '../../lib/safe-fetch';

describe('safe fetch: public addresses only', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast, reserved and metadata IPv4 addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '169.254.0.1',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '0.1.2.3',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
      '198.51.100.1',
      '203.0.113.5',
      '198.18.0.1',
      '192.0.0.8',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });

  it('accepts public IPv4 addresses, including neighbours of the blocked ranges', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.15.255.255',
      '172.32.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '169.253.255.255',
      '192.169.0.1',
      '11.0.0.1',
      '223.255.255.254',
    ]) {
      expect(isPublicAddress(address), address).to.equal(true);
    }
  });

  it('refuses IPv6 loopback, unspecified, ULA (fd00:ec2::254 metadata), link-local, multicast, documentation and IPv4 hidden inside IPv6', () => {
    for (const address of [
      '::1',
      '::',
      'fd00:ec2::254',
      'fc00::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
      '[::1]',
      'not-an-ip',
      '',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });

  it('accepts public IPv6 addresses and public IPv4 mapped into IPv6', () => {
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(isPublicAddress(address), address).to.equal(true);
    }
  });

  it('judges IPv4-mapped, IPv4-translated and NAT64 IPv6 addresses by the IPv4 address inside', () => {
    const inner = {
      private: ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1'],
      public: ['8.8.8.8', '1.1.1.1', '93.184.216.34'],
    };
    const hexTail = (v4: string): string => {
      const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
      return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    };
    const forms = (v4: string): string[] => [
      `::ffff:${v4}`,
      `::ffff:${hexTail(v4)}`,
      `::ffff:0:${v4}`,
      `::ffff:0:${hexTail(v4)}`,
      `0:0:0:0:ffff:0:${v4}`,
      `64:ff9b::${v4}`,
      `64:ff9b::${hexTail(v4)}`,
    ];
    for (const v4 of inner.private) for (const address of forms(v4)) expect(isPublicAddress(address), address).to.equal(false);
    for (const v4 of inner.public) for (const address of forms(v4)) expect(isPublicAddress(address), address).to.equal(true);
    const reason = (url: string): string | undefined => {
      try {
        checkUrl(url);
        return undefined;
      } catch (error) {
        return (error as SafeFetchError).reason;
      }
    };
    for (const url of [
      'http://[::ffff:0:127.0.0.1]/',
      'http://[::ffff:0:169.254.169.254]/latest/meta-data',
      'http://[::ffff:0:a00:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ]) {
      expect(reason(url), url).to.equal('address_not_allowed');
    }
    expect(reason('http://[::ffff:0:8.8.8.8]/')).to.equal(undefined);
    expect(reason('http://[64:ff9b::8.8.8.8]/')).to.equal(undefined);
  });

  it('checks scheme, credentials and IP-literal hosts before connecting (WHATWG-normalised forms included)', () => {
    const reason = (url: string): string | undefined => {
      try {
        checkUrl(url);
        return undefined;
      } catch (error) {
        return (error as SafeFetchError).reason;
      }
    };
    expect(reason('ftp://example.com/a.png')).to.equal('scheme_not_allowed');
    expect(reason('file:///etc/passwd')).to.equal('scheme_not_allowed');
    expect(reason('http://user:pw@example.com/a.png')).to.equal('credentials_not_allowed');
    expect(reason('not a url')).to.equal('invalid_url');
    expect(reason('http://127.0.0.1/a.png')).to.equal('address_not_allowed');
    expect(reason('http://2130706433/a.png')).to.equal('address_not_allowed');
    expect(reason('http://0x7f.1/a.png')).to.equal('address_not_allowed');
    expect(reason('http://[::ffff:169.254.169.254]/latest/meta-data')).to.equal('address_not_allowed');
    expect(reason('http://169.254.169.254/latest/meta-data')).to.equal('address_not_allowed');
    expect(reason('http://[fd00:ec2::254]/')).to.equal('address_not_allowed');
    expect(reason('https://example.com/a.png')).to.equal(undefined);
  });
});

describe('safe fetch: fetching', function () {
  this.timeout(20_000);
  let server: http.Server;
  let base: string;
  const options = (over: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
    timeoutMs: 2_000,
    maxBytes: 1_000,
    maxRedirects: 2,
    allowAddresses: ['127.0.0.1'],
    ...over,
  });

  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/ok') {
        res.writeHead(200, { 'Content-Type': 'image/png' });
        res.end(Buffer.alloc(100, 1));
      } else if (url.pathname === '/big') {
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': '5000' });
        res.end(Buffer.alloc(5000, 1));
      } else if (url.pathname === '/big-chunked') {
        res.writeHead(200, { 'Content-Type': 'image/png' });
        for (let i = 0; i < 10; i += 1) res.write(Buffer.alloc(500, 1));
        res.end();
      } else if (url.pathname === '/slow') {
        res.writeHead(200, { 'Content-Type': 'image/png' });
        res.write(Buffer.alloc(10, 1));
        setTimeout(() => res.end(), 5_000).unref();
      } else if (url.pathname === '/redirect') {
        res.writeHead(302, { Location: url.searchParams.get('to') ?? '/ok' });
        res.end();
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { Location: '/loop' });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const failure = async (url: string, opts = options()): Promise<SafeFetchError> => {
    try {
      await safeFetch(url, opts);
    } catch (error) {
      return error as SafeFetchError;
    }
    throw new Error(`${url} was fetched`);
  };

  it('fetches from an allowed address and follows a redirect to it', async () => {
    const result = await safeFetch(`${base}/ok`, options());
    expect(result.body.length).to.equal(100);
    expect(result.contentType).to.equal('image/png');
    const redirected = await safeFetch(`${base}/redirect?to=/ok`, options());
    expect(redirected.finalUrl).to.equal(`${base}/ok`);
  });

  it('refuses loopback without the test allow-list, and loopback addresses not on it', async () => {
    expect((await failure(`${base}/ok`, options({ allowAddresses: [] }))).reason).to.equal('address_not_allowed');
    const port = (server.address() as AddressInfo).port;
    expect((await failure(`http://127.0.0.2:${port}/ok`)).reason).to.equal('address_not_allowed');
    expect((await failure(`http://[::1]:${port}/ok`)).reason).to.equal('address_not_allowed');
  });

  it('refuses a hostname that resolves to loopback (checked at connect time)', async () => {
    const port = (server.address() as AddressInfo).port;
    const error = await failure(`http://localhost:${port}/ok`, options({ allowAddresses: [] }));
    expect(error.reason).to.equal('address_not_allowed');
  });

  it('re-checks every redirect: to a private, metadata or loopback address is refused', async () => {
    const port = (server.address() as AddressInfo).port;
    for (const to of [
      'http://10.0.0.1/x.png',
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.2:${port}/ok`,
      'http://[fd00:ec2::254]/',
      'gopher://example.com/',
    ]) {
      const error = await failure(`${base}/redirect?to=${encodeURIComponent(to)}`);
      expect(error.reason, to).to.be.oneOf(['address_not_allowed', 'scheme_not_allowed']);
    }
  });

  it('limits redirects, size (declared and streamed) and time; reports HTTP errors', async () => {
    expect((await failure(`${base}/loop`)).reason).to.equal('too_many_redirects');
    expect((await failure(`${base}/big`)).reason).to.equal('too_large');
    expect((await failure(`${base}/big-chunked`)).reason).to.equal('too_large');
    const slow = await failure(`${base}/slow`, options({ timeoutMs: 300 }));
    expect(slow.reason).to.equal('timeout');
    expect(slow.transient).to.equal(true);
    const missing = await failure(`${base}/missing`);
    expect(missing.reason).to.equal('http_status');
    expect(missing.httpStatus).to.equal(404);
    expect(missing.transient).to.equal(false);
  });
});
