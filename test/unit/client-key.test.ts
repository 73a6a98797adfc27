/**
 * The client a per-client limit counts (clientKey of storage/rate-limit.ts): IPv4 addresses as they
 * are, also when written IPv4-mapped, and IPv6 addresses by their /64 network.
 */
import { expect } from 'chai';
import { clientKey } from '../../storage/rate-limit';

describe('clientKey', () => {
  it('keeps IPv4 addresses, also IPv4-mapped ones, and counts an unknown address as one client', () => {
    expect(clientKey('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKey('::FFFF:127.0.0.1')).to.equal('127.0.0.1');
    expect(clientKey(undefined)).to.equal('unknown');
    expect(clientKey('')).to.equal('unknown');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const ip of ['2001:db8:1:2::1', '2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:9', '2001:db8:1:2:a::b'])
      expect(clientKey(ip), ip).to.equal(key);
    expect(clientKey('2001:db8:1:3::1')).to.equal('2001:db8:1:3::/64');
    expect(clientKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(clientKey('::1')).to.equal('0:0:0:0::/64');
    expect(clientKey('fe80::1:2:3:4')).to.equal('fe80:0:0:0::/64');
  });
});
