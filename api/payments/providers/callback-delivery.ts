/**
 * Delivery of the payment simulator's callbacks (docs/payments.md, "Callbacks and signatures"): the
 * jobs worker POSTs each queued callback (provider_sim_callbacks) to its URL once its transaction
 * committed, signed at sending time (so a retry carries a fresh timestamp). Anything but a 2xx
 * answer throws, and the outbox retries with its backoff; a delivered callback is never sent again.
 *
 * The URL is fetched SSRF-safe (lib/safe-fetch.ts: every address the host resolves to must be
 * public, checked at connect time). One exception: a callback to this server's own PUBLIC_BASE_URL
 * (the simulator calling back the platform it runs in) may reach the loopback addresses.
 */
import http from 'node:http';
import https from 'node:https';
import type { DataSource } from 'typeorm';
import { checkUrl, guardedLookup } from '../../../lib/safe-fetch';
import type { ContextServices } from '../../../storage/request-context';
import { isPaymentProviderName } from './port';
import { providerSecret, signCallback, SIGNATURE_HEADER } from './signing';

const TIMEOUT_MS = 10_000;
const LOOPBACK = ['127.0.0.1', '::1'];

function allowedAddresses(url: string, publicBaseUrl: string): string[] {
  try {
    return new URL(url).origin === new URL(publicBaseUrl).origin ? LOOPBACK : [];
  } catch {
    return [];
  }
}

/** POSTs `body` to `url` with the headers; resolves with the status. No redirects are followed. */
export function postSafely(url: string, body: Buffer, headers: Record<string, string>, allowAddresses: string[]): Promise<number> {
  const target = checkUrl(url, allowAddresses);
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = lib.request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(allowAddresses),
        agent: false,
        timeout: TIMEOUT_MS,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
          'User-Agent': 'payment-simulator/1.0',
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('callback timed out')));
    request.on('error', reject);
    request.end(body);
  });
}

export async function deliverProviderCallback(dataSource: DataSource, services: ContextServices | undefined, id: string): Promise<void> {
  if (!services) throw new Error('the provider_callback job needs the process services');
  const rows = (await dataSource.query(`SELECT provider, url, body, delivered_at FROM provider_sim_callbacks WHERE id = $1`, [
    id,
  ])) as Array<{
    provider: string;
    url: string;
    body: string;
    delivered_at: Date | null;
  }>;
  const row = rows[0];
  if (!row || row.delivered_at || !isPaymentProviderName(row.provider)) return;
  const body = Buffer.from(row.body, 'utf8');
  const signature = signCallback(providerSecret(services.config.appSecret, row.provider), body);
  let status = 0;
  let failure: string | undefined;
  try {
    status = await postSafely(row.url, body, { [SIGNATURE_HEADER]: signature }, allowedAddresses(row.url, services.config.publicBaseUrl));
    if (status < 200 || status >= 300) failure = `answered ${status}`;
  } catch (error) {
    failure = (error as Error).message;
  }
  await dataSource.query(
    `UPDATE provider_sim_callbacks SET attempts = attempts + 1, last_error = $2, delivered_at = CASE WHEN $2::text IS NULL THEN now() END
      WHERE id = $1`,
    [id, failure ?? null],
  );
  if (failure) throw new Error(`payment-simulator callback ${id} to ${row.url} failed: ${failure}`);
}
