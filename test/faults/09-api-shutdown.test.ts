/**
 * Graceful shutdown of an api process under traffic. A second api process (the shop's api keeps
 * serving the other faults) gets keep-alive clients sending requests back to back, a slow upload (an
 * async import trickled over 4 s), a slow JSON body, a long request (a synchronous import) and two
 * requests whose last header line is held back, then SIGTERM. Every request the server had
 * received must get a complete answer: a connection refused means the server never got the request
 * and is fine; a request sent on an open connection that gets no complete answer is a reset
 * (counted even when the server closed an idle keep-alive connection just as the client sent on it:
 * the client cannot tell the difference, so a server draining well does not close connections that
 * way). Also: /readyz answers 503 once the process acts on SIGTERM (asked on a connection the server
 * already had, as the listener may close at once), answers sent while draining carry
 * `Connection: close`, and the process exits 0.
 */
import { createStore } from './api';
import { heldRequest, keepAliveLoop, send, type Outcome } from './drain-clients';
import { FAULT_TIMEOUT_MS } from './flow';
import { importCsv } from './imports';
import { guarded, missedTargets, report } from './results';
import type { RoleProcess } from './roles';
import { sleep, within } from './util';
import { world } from './world';

const FAULT = 'api SIGTERM under keep-alive traffic';

describe('fault: graceful api shutdown (SIGTERM) under keep-alive traffic', function () {
  this.timeout(FAULT_TIMEOUT_MS);
  let api: RoleProcess;
  let storeId: string;

  before(async () => {
    api = world().spawnRole('api-drain', 'api');
    await api.start();
    storeId = await createStore(world().bulk.api, 'Drain');
  });
  after(() => api.shutdown());

  it('answers every request it received, says 503 on /readyz, closes keep-alive connections and exits 0', () =>
    guarded(FAULT, async () => {
      const w = world();
      const auth = { Authorization: `Bearer ${w.bulk.api.token}` };
      const json = (body: unknown): Buffer[] => [Buffer.from(JSON.stringify(body))];
      const product = (title: string): Record<string, unknown> => ({ storeId, title, type: 'PHYSICAL', price: 12.5, status: 'PUBLISHED' });
      let stopAt = Number.POSITIVE_INFINITY;
      const loops = Array.from({ length: 4 }, (_, n) =>
        keepAliveLoop(
          api.port,
          `keep-alive ${n}`,
          (i) =>
            [
              { method: 'GET', path: `/api/v1/catalog/public/search?storeId=${w.shop.storeId}&q=oak` },
              { method: 'GET', path: '/healthz' },
              {
                method: 'POST',
                path: '/api/v1/catalog/products',
                headers: { ...auth, 'Content-Type': 'application/json' },
                pieces: json(product(`drain ${n}-${i}`)),
              },
            ][i % 3]!,
          () => Date.now() > stopAt,
        ),
      );
      await sleep(1_500);
      const csv = Buffer.from(importCsv('drain', 300));
      const slices = Array.from({ length: 20 }, (_, i) =>
        csv.subarray(Math.floor((i * csv.length) / 20), Math.floor(((i + 1) * csv.length) / 20)),
      );
      const upload = send(api.port, {
        label: 'slow upload',
        method: 'POST',
        path: `/api/v1/bulk-import/products/async?storeId=${storeId}`,
        headers: { ...auth, 'Content-Type': 'text/csv' },
        pieces: slices,
        pauseMs: 200,
      });
      await sleep(1_000);
      const body = JSON.stringify(product('slow body'));
      const slowBody = send(api.port, {
        label: 'slow body',
        method: 'POST',
        path: '/api/v1/catalog/products',
        headers: { ...auth, 'Content-Type': 'application/json' },
        pieces: [Buffer.from(body.slice(0, 20)), Buffer.from(body.slice(20))],
        pauseMs: 2_500,
      });
      const long = send(api.port, {
        label: 'long import',
        method: 'POST',
        path: `/api/v1/bulk-import/products?storeId=${storeId}`,
        headers: { ...auth, 'Content-Type': 'text/csv' },
        pieces: [Buffer.from(importCsv('drainsync', 3_000))],
      });
      const heldReadyz = await heldRequest(api.port, 'readyz (held)', '/readyz');
      const heldHealthz = await heldRequest(api.port, 'healthz (held)', '/healthz');
      await sleep(300);

      const sigterm = Date.now();
      const exited = api.stop('SIGTERM', 30_000).then((code) => ({ code, at: Date.now() }));
      // Draining starts when the process acts on the signal (its log says so), which a busy event loop
      // may do a while after the signal was sent: requests sent before that are not judged for it.
      const drainFrom = await api.waitForLog('shutting down', 10_000).catch(() => sigterm);
      const held = await within('the held requests', 30_000, Promise.all([heldReadyz.complete(), heldHealthz.complete()]));
      const readyz = held[0];
      const fresh = await send(api.port, { label: 'readyz (new connection)', method: 'GET', path: '/readyz' });
      stopAt = Date.now() + 4_000;
      const outcomes: Outcome[] = [
        ...(await within('the keep-alive clients to stop', 60_000, Promise.all(loops))).flat(),
        ...held,
        ...(await within('the slow requests', 60_000, Promise.all([upload, slowBody, long]))),
      ];
      const { code, at: exitedAt } = await exited.catch((error: Error) => ({ code: error.message, at: Date.now() }));

      const resets = outcomes.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED');
      const draining = outcomes.filter((o) => o.startedAt > drainFrom);
      // Answered while draining; 100 ms of slack for answers whose headers were on their way already.
      const answeredDraining = outcomes.filter((o) => o.answeredAt !== undefined && o.answeredAt > drainFrom + 100);
      const withoutClose = answeredDraining.filter((o) => !o.closes);
      const created = outcomes.filter((o) => o.status === 201 && o.json?.id).map((o) => o.json.id as string);
      const [stored] = await w.db.query<{ n: number }>('SELECT count(*)::int AS n FROM products WHERE id = ANY($1::uuid[])', [created]);
      const lost = created.length - stored!.n;
      const [uploadOutcome, slowOutcome, longOutcome] = outcomes.slice(-3) as [Outcome, Outcome, Outcome];
      const healthz = held[1];
      const figures = { recoveryMs: null, targetMs: null, lostWrites: lost, duplicates: null, resetRequests: resets.length };
      const failures = missedTargets(figures, 0);
      if (readyz.status !== 503)
        failures.push(`/readyz ${readyz.startedAt - sigterm} ms after SIGTERM: ${readyz.status ?? readyz.error}, expected 503`);
      if (withoutClose.length)
        failures.push(
          `${withoutClose.length} of ${answeredDraining.length} answers while draining without Connection: close (${withoutClose
            .slice(0, 3)
            .map((o) => o.label)
            .join(', ')})`,
        );
      if (code !== 0) failures.push(`exit code ${String(code)}, expected 0`);
      for (const [o, status] of [
        [uploadOutcome, 202],
        [slowOutcome, 201],
        [longOutcome, 200],
      ] as const) {
        if (o.status !== status) failures.push(`${o.label}: ${o.status ?? o.error}, expected ${status}`);
      }
      const statuses = new Map<string, number>();
      for (const o of draining) statuses.set(String(o.status ?? o.error), (statuses.get(String(o.status ?? o.error)) ?? 0) + 1);
      report({
        fault: FAULT,
        ...figures,
        failures,
        notes: [
          `${outcomes.length} requests, ${draining.length} sent while draining (${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')})`,
          `draining began ${drainFrom - sigterm} ms after SIGTERM; /readyz then: ${readyz.status ?? readyz.error} (held connection), ${fresh.status ?? fresh.error} (new connection)`,
          `${answeredDraining.length} answers while draining, ${withoutClose.length} without Connection: close`,
          `slow upload ${uploadOutcome.status ?? uploadOutcome.error}, slow body ${slowOutcome.status ?? slowOutcome.error}, long import ${longOutcome.status ?? longOutcome.error}, held healthz ${healthz.status ?? healthz.error}`,
          `exit code ${String(code)} ${exitedAt - sigterm} ms after SIGTERM`,
          resets.length
            ? `resets (+ms after SIGTERM): ${resets
                .slice(0, 5)
                .map((o) => `${o.label} ${o.error} at +${o.startedAt - sigterm}${o.reused ? ' on a reused keep-alive connection' : ''}`)
                .join(' | ')}`
            : '',
        ]
          .filter(Boolean)
          .join('; '),
      });
    }));
});
