/**
 * After every fault: each product.created and product.updated event that an acknowledged write of
 * the writers caused must have reached the receiver at least once (deduplicated by deliveryId, as
 * receivers must), correctly signed. Repeated arrivals are allowed (delivery is at least once) and
 * only reported.
 */
import { FAULT_TIMEOUT_MS } from './flow';
import { guarded, report } from './results';
import { sleep } from './util';
import { world } from './world';

const DELIVERY_WAIT_MS = 60_000;

describe('after the faults: webhooks', function () {
  this.timeout(FAULT_TIMEOUT_MS);

  it('delivered every product.created and product.updated event the writers caused', () =>
    guarded('webhooks after all faults', async () => {
      const w = world();
      const expected = new Map<string, number>();
      for (const writer of w.writers)
        for (const e of writer.events) expected.set(`${e.topic}|${e.productId}`, (expected.get(`${e.topic}|${e.productId}`) ?? 0) + 1);
      const missing = (): number => {
        const received = new Map<string, number>();
        for (const d of w.receiver.byDelivery.values())
          received.set(`${d.topic}|${d.productId}`, (received.get(`${d.topic}|${d.productId}`) ?? 0) + 1);
        let short = 0;
        for (const [key, count] of expected) short += Math.max(0, count - (received.get(key) ?? 0));
        return short;
      };
      const started = Date.now();
      while (missing() > 0 && Date.now() - started < DELIVERY_WAIT_MS) await sleep(500);
      const short = missing();
      const events = [...expected.values()].reduce((a, b) => a + b, 0);
      const failures: string[] = [];
      if (events === 0) failures.push('the writers caused no event: nothing was checked');
      if (short) failures.push(`${short} of ${events} events not delivered within ${DELIVERY_WAIT_MS} ms after the last fault`);
      if (w.receiver.badSignatures) failures.push(`${w.receiver.badSignatures} deliveries with a bad signature`);
      report({
        fault: 'webhooks after all faults',
        recoveryMs: null,
        targetMs: null,
        lostWrites: short,
        duplicates: null,
        resetRequests: null,
        failures,
        notes: `${events} events caused by acknowledged writes, ${w.receiver.byDelivery.size} distinct deliveries received, ${w.receiver.repeats()} repeated arrivals (at least once), waited ${Date.now() - started} ms`,
      });
    }));
});
