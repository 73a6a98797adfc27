/**
 * HTML form bodies over BODY_LIMIT_FORM: the start page's sandbox form (`POST /`) and the console's
 * sign-in (`POST /console/login`) answer 413 with their own HTML page and its message, never a
 * 500, whether the size is declared up front or only found while reading; a body just under the
 * limit is read as usual.
 */
import http from 'node:http';
import { expect } from 'chai';
import { call, type TestResponse, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';

const LIMIT = 16 * 1024;
const FORM = 'application/x-www-form-urlencoded';

/** A form body of exactly `bytes` bytes, with the given fields first. */
function formOf(bytes: number, fields: string): string {
  const head = `${fields}&pad=`;
  return head + 'x'.repeat(bytes - head.length);
}

/** Posts `bytes` bytes chunked (no Content-Length), so the limit is only found while reading. */
function postChunked(server: TestServer, path: string, body: string): Promise<{ status: number; text: string; type: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.baseUrl);
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': FORM, 'Transfer-Encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, type: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 4096) req.write(body.slice(i, i + 4096));
    req.end();
  });
}

function expectTooLargePage(res: { status: number; text: string; type: string | null }, label: string): void {
  expect(res.status, `${label}: ${res.text.slice(0, 300)}`).to.equal(413);
  expect(res.type, label).to.match(/^text\/html/);
  expect(res.text, label).to.include('The form is too large to send.');
}

const html = (res: TestResponse): { status: number; text: string; type: string | null } => ({
  status: res.status,
  text: res.text,
  type: res.headers.get('content-type'),
});

describe('web form body limits', () => {
  let server: TestServer;
  apiSuite((started) => (server = started), { config: { bodyLimitFormBytes: LIMIT } });

  for (const [path, fields] of [
    ['/', 'email=not-an-address'],
    ['/console/login', 'email=nobody%40example.com&password=wrong-password'],
  ] as const) {
    describe(`POST ${path}`, () => {
      it('answers 413 with its HTML page for 100 KB, and for one byte over the limit', async () => {
        for (const bytes of [100 * 1024, LIMIT + 1]) {
          const res = await call(server, 'POST', path, { rawBody: formOf(bytes, fields), contentType: FORM });
          expectTooLargePage(html(res), `${path} ${bytes} bytes`);
        }
      });

      it('answers 413 when the size is only found while reading a chunked body', async () => {
        expectTooLargePage(await postChunked(server, path, formOf(100 * 1024, fields)), `${path} chunked`);
      });

      it('reads a body just under the limit as usual', async () => {
        const res = await call(server, 'POST', path, { rawBody: formOf(LIMIT - 1, fields), contentType: FORM });
        expect(res.status, res.text.slice(0, 300)).to.be.oneOf(path === '/' ? [400, 503] : [401]);
        expect(res.headers.get('content-type')).to.match(/^text\/html/);
        expect(res.text).not.to.include('The form is too large to send.');
      });
    });
  }
});
