/**
 * The traffic that runs through every fault: a writer changing products through the API and a
 * reader searching the storefront.
 *
 * The writer records what each acknowledged write left behind (the answer's title, price and
 * status, or "deleted"), so the suite can say afterwards whether PostgreSQL still holds it. A write
 * that got no answer or a 5xx may or may not have committed: its product is marked uncertain and
 * not judged until a later acknowledged write settles it again (a 404 then means the delete did
 * commit). A write the API refused with a 4xx changed nothing and leaves the expectation as it was.
 */
import type { Api } from './api';
import type { ImageServer } from './receivers';
import { sleep, waitFor } from './util';

export interface ExpectedProduct {
  id: string;
  title: string;
  price: number;
  status: string;
  deleted: boolean;
  uncertain: boolean;
}

/** product.created / product.updated events an acknowledged write caused (the endpoint subscribes to these two). */
export interface CausedEvent {
  topic: 'product.created' | 'product.updated';
  productId: string;
}

const WORDS = ['walnut', 'oak', 'linen', 'cotton', 'steel', 'amber', 'cedar', 'maple', 'wool', 'slate'];
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

export class Writer {
  readonly products = new Map<string, ExpectedProduct>();
  readonly events: CausedEvent[] = [];
  acked = 0;
  /** Writes without an answer or with a 5xx (their outcome is unknown). */
  unanswered = 0;
  refused = 0;
  private seq = 0;
  private mark = { acked: 0, unanswered: 0, refused: 0 };
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: Api,
    readonly storeId: string,
    private readonly label: string,
    private readonly options: { images?: ImageServer; maxLive?: number; pauseMs?: number } = {},
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.step();
        await sleep(this.options.pauseMs ?? 40);
      }
    })();
  }

  /** Stops after the write in flight has its answer (each write has a 5 s deadline). */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Waits until `count` more writes were acknowledged than when called: the platform takes writes. */
  async waitForAcks(count: number, timeoutMs: number): Promise<void> {
    const target = this.acked + count;
    await waitFor(
      `${count} acknowledged writes of ${this.label} (acked ${this.acked}, unanswered ${this.unanswered}, refused ${this.refused})`,
      timeoutMs,
      () => this.acked >= target,
      100,
    );
  }

  /** Counts since the last call, e.g. `writes 80 acked, 3 unanswered, 0 refused`. */
  take(): string {
    const line = `writes ${this.acked - this.mark.acked} acked, ${this.unanswered - this.mark.unanswered} unanswered, ${this.refused - this.mark.refused} refused`;
    this.mark = { acked: this.acked, unanswered: this.unanswered, refused: this.refused };
    return line;
  }

  live(): ExpectedProduct[] {
    return [...this.products.values()].filter((p) => !p.deleted);
  }

  private body(status?: string): Record<string, unknown> {
    this.seq += 1;
    const body: Record<string, unknown> = {
      type: 'PHYSICAL',
      title: `${pick(WORDS)} ${pick(WORDS)} ${this.label} w${this.seq}`,
      price: Math.round(100 + Math.random() * 49_900) / 100,
    };
    if (status) body.status = status;
    if (this.options.images) body.images = [{ url: this.options.images.url(this.seq) }];
    return body;
  }

  private async step(): Promise<void> {
    const live = this.live();
    const maxLive = this.options.maxLive ?? 120;
    if (live.length < 10 || (live.length < maxLive && Math.random() < 0.3)) {
      const res = await this.api.call('POST', '/api/v1/catalog/products', {
        body: { storeId: this.storeId, ...this.body(Math.random() < 0.75 ? 'PUBLISHED' : 'DRAFT') },
        timeoutMs: 5_000,
      });
      if (this.settled(res.status, 201) && res.json?.id) {
        this.products.set(res.json.id, this.expectation(res.json));
        this.events.push({ topic: 'product.created', productId: res.json.id });
      }
      return;
    }
    const product = pick(live);
    const path = `/api/v1/catalog/products/${product.id}`;
    const r = Math.random();
    if (r >= 0.84) {
      const res = await this.api.call('DELETE', path, { timeoutMs: 5_000 });
      // 404 for a product whose last write got no answer: that write was a delete, and it committed.
      if (this.settled(res.status, 204) || (res.status === 404 && product.uncertain))
        Object.assign(product, { deleted: true, uncertain: false });
      else if (res.status === 0 || res.status >= 500) product.uncertain = true;
      return;
    }
    // PUT replaces the product (always with a new title, so it changes and is product.updated);
    // publish and archive have topics of their own that the endpoint does not subscribe to.
    const replace = r < 0.45 || (r >= 0.6 && r < 0.72);
    const res = replace
      ? await this.api.call('PUT', path, { body: this.body(r < 0.45 ? undefined : 'DRAFT'), timeoutMs: 5_000 })
      : await this.api.call('POST', `${path}/${r < 0.6 ? 'publish' : 'archive'}`, { timeoutMs: 5_000 });
    if (this.settled(res.status, replace ? 200 : 201)) {
      Object.assign(product, this.expectation(res.json));
      if (replace) this.events.push({ topic: 'product.updated', productId: product.id });
    } else if (res.status === 0 || res.status >= 500) {
      product.uncertain = true;
    } else if (res.status === 404 && product.uncertain) {
      // The delete that got no answer did commit.
      Object.assign(product, { deleted: true, uncertain: false });
    }
  }

  /** Counts the outcome; true when the write was acknowledged with `ok`. */
  private settled(status: number, ok: number): boolean {
    if (status === ok) {
      this.acked += 1;
      return true;
    }
    if (status === 0 || status >= 500) this.unanswered += 1;
    else this.refused += 1;
    return false;
  }

  private expectation(json: any): ExpectedProduct {
    return { id: json.id, title: json.title, price: Number(json.price), status: json.status, deleted: false, uncertain: false };
  }
}

/** Storefront searches in a loop; counts answers per outcome (not judged: during an outage 503s are expected). */
export class Reader {
  ok = 0;
  failed = 0;
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: Api,
    private readonly storeId: string,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const res = await this.api.call('GET', `/api/v1/catalog/public/search?storeId=${this.storeId}&q=${pick(WORDS)}`, {
          timeoutMs: 5_000,
        });
        if (res.status === 200) this.ok += 1;
        else this.failed += 1;
        await sleep(60);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Counts since the last call, e.g. `reads 120 ok / 14 failed`. */
  take(): string {
    const line = `reads ${this.ok} ok / ${this.failed} failed`;
    this.ok = 0;
    this.failed = 0;
    return line;
  }
}
