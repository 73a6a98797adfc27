/**
 * The storefront's calls to the API carry the shopper's address (api/http/client-relay.ts): only a
 * key derived from APP_SECRET makes the API take it, so per-client limits count each shopper while
 * nobody else can choose the address a limit is counted under.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { RELAY_KEY_HEADER, RELAYED_IP_HEADER, relayedClientIp, relayHeaders } from '../../api/http/client-relay';

describe('client address relayed by the storefront', () => {
  const secret = 'a-test-app-secret-of-enough-length-0123456789';
  let server: Server;
  let base: string;

  before(async () => {
    const app = new Koa();
    app.use(relayedClientIp(secret));
    app.use((ctx) => {
      ctx.body = { ip: ctx.ip, relay: ctx.state.relayHeaders };
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  after(() => new Promise((resolve) => server.close(resolve)));

  async function seenIp(headers: Record<string, string>): Promise<{ ip: string; relay: Record<string, string> }> {
    return (await (await fetch(base, { headers })).json()) as { ip: string; relay: Record<string, string> };
  }

  it('takes the relayed address when the key is genuine, and passes it on to further calls', async () => {
    const seen = await seenIp(relayHeaders(secret, '203.0.113.7'));
    expect(seen.ip).to.equal('203.0.113.7');
    expect(seen.relay).to.deep.equal(relayHeaders(secret, '203.0.113.7'));
    expect((await seenIp(relayHeaders(secret, '2001:db8::1'))).ip).to.equal('2001:db8::1');
  });

  it('keeps the socket address without a key, with a forged key, or with a key of another secret', async () => {
    expect((await seenIp({ [RELAYED_IP_HEADER]: '203.0.113.7' })).ip).to.match(/127\.0\.0\.1$/);
    expect((await seenIp({ [RELAYED_IP_HEADER]: '203.0.113.7', [RELAY_KEY_HEADER]: 'f'.repeat(64) })).ip).to.match(/127\.0\.0\.1$/);
    expect((await seenIp({ [RELAYED_IP_HEADER]: '203.0.113.7', [RELAY_KEY_HEADER]: 'short' })).ip).to.match(/127\.0\.0\.1$/);
    expect((await seenIp(relayHeaders('another-secret-of-enough-length-0123456789', '203.0.113.7'))).ip).to.match(/127\.0\.0\.1$/);
    const own = await seenIp({});
    expect(own.relay).to.deep.equal(relayHeaders(secret, own.ip));
  });

  it('ignores what is not an IP address, even with a genuine key', async () => {
    const key = relayHeaders(secret, '203.0.113.7')[RELAY_KEY_HEADER]!;
    expect((await seenIp({ [RELAYED_IP_HEADER]: 'attacker.example', [RELAY_KEY_HEADER]: key })).ip).to.match(/127\.0\.0\.1$/);
    expect(relayHeaders(secret, 'not-an-ip')).to.deep.equal({});
  });
});
