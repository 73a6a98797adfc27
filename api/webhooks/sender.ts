/**
 * One webhook request: POST of the frozen body to the receiver, SSRF-safe like the image fetcher
 * (lib/safe-fetch.ts: http(s) only, no credentials in the URL, every resolved address public,
 * checked inside the socket's lookup so DNS rebinding cannot slip through), one deadline for the whole
 * exchange, and no redirects: a 3xx is a failed attempt like any other non-2xx answer (a receiver
 * that moved must update its endpoint URL). At most 64 KiB of the answer is read, then dropped.
 */
import http from 'node:http';
import https from 'node:https';
import { checkUrl, guardedLookup, SafeFetchError } from '../../lib/safe-fetch';

export interface SendOptions {
  timeoutMs: number;
  /** Addresses allowed although not public (tests only). */
  allowAddresses?: readonly string[];
}

export interface SendResult {
  ok: boolean;
  /** The receiver's status; null when no answer came. */
  statusCode: number | null;
  /** Why the attempt failed (null on success). */
  error: string | null;
  durationMs: number;
}

const MAX_ANSWER_BYTES = 64 * 1024;

export async function sendWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    ok: error === null,
    statusCode,
    error,
    durationMs: Date.now() - started,
  });
  let url: URL;
  try {
    url = checkUrl(rawUrl, options.allowAddresses);
  } catch (error) {
    return done(null, (error as Error).message.replace('The image URL', 'The endpoint URL'));
  }
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(statusCode, error));
    };
    const payload = Buffer.from(body, 'utf8');
    const lib = url.protocol === 'https:' ? https : http;
    const request = lib.request(url, {
      method: 'POST',
      lookup: guardedLookup(options.allowAddresses),
      agent: false,
      headers: { ...headers, 'Content-Length': String(payload.length), 'User-Agent': 'commerce-webhooks/1.0', Connection: 'close' },
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish(null, `No answer within ${options.timeoutMs} ms.`);
    }, options.timeoutMs);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const settle = (): void => {
        if (status >= 200 && status < 300) finish(status, null);
        else if (status >= 300 && status < 400) finish(status, `The receiver answered ${status} (redirects are not followed).`);
        else finish(status, `The receiver answered ${status}.`);
      };
      response.on('end', settle);
      response.on('close', settle);
      response.on('error', settle);
    });
    request.on('error', (error) => {
      const message =
        error instanceof SafeFetchError
          ? error.message
          : `The receiver could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message}).`;
      finish(null, message);
    });
    request.end(payload);
  });
}
