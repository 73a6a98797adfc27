/**
 * Coalesces product deliveries of the `index` queue into few Meilisearch writes. The outbox hands
 * the indexer one job per product; an import or a bulk edit makes thousands at once. Each delivery
 * joins the open batch and waits for it; a batch is written when it has lingered `lingerMs` (or is
 * full) and a write slot is free, so while one batch is in Meilisearch the next one fills up. A
 * product written twice in one burst is read and written once. Every delivery settles only after its
 * batch's Meilisearch tasks succeeded, so the outbox still acknowledges rows only after success.
 *
 * A batch whose Meilisearch task failed is retried one product at a time before anything is
 * reported, so one product Meilisearch refuses fails only its own delivery (retried with backoff by
 * the outbox) and never holds the others back; any other failure (Meilisearch unreachable, a
 * timeout) fails the whole batch at once, and the outbox retries every delivery of it.
 */

/**
 * Writes the products' documents. `fallbacks`: what every delivery of the batch named as where to
 * look for products that are gone (the indexer passes tenant ids), merged over the batch.
 */
export type SyncProducts = (ids: string[], fallbacks: string[]) => Promise<{ stores: Set<string> }>;

export interface ProductBatcherOptions {
  /** Products that start a write at once without lingering. */
  maxBatch: number;
  /** How long a batch waits for more products before it is written. */
  lingerMs: number;
  /**
   * How long a batch of only patient deliveries (an import's batches) waits: part of what a
   * Meilisearch write costs does not grow with its size (measured: about 0.33 s per 1 000 documents
   * in writes of 1 000, 0.27 s in writes of 2 000 to 3 000), so fewer, larger writes of a bulk change
   * leave more of the machine to the change itself. A delivery that is not patient cuts it to `lingerMs`.
   */
  patientLingerMs?: number;
  /** Batches written at the same time. */
  maxInFlight: number;
}

interface Waiter {
  resolve: (stores: Set<string>) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  /** Product id → the deliveries waiting for it. */
  products: Map<string, Waiter[]>;
  fallbacks: Set<string>;
  due: boolean;
  patient: boolean;
}

export class ProductBatcher {
  private open: Batch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = 0;

  constructor(
    private readonly syncProducts: SyncProducts,
    private readonly options: ProductBatcherOptions,
    private readonly isRefusal: (error: unknown) => boolean,
  ) {}

  /** Resolves with the stores whose index changed once the product's document is written (or deleted). */
  sync(id: string, fallbacks: string[], patient = false): Promise<Set<string>> {
    const batch = (this.open ??= { products: new Map(), fallbacks: new Set(), due: false, patient });
    if (batch.patient && !patient) {
      // Someone waits for this one: the batch goes at the normal pace.
      batch.patient = false;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
    }
    for (const fallback of fallbacks) batch.fallbacks.add(fallback);
    const settled = new Promise<Set<string>>((resolve, reject) => {
      const waiters = batch.products.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else batch.products.set(id, [{ resolve, reject }]);
    });
    if (batch.products.size >= this.options.maxBatch) batch.due = true;
    else
      this.timer ??= setTimeout(
        () => this.markDue(),
        batch.patient ? (this.options.patientLingerMs ?? this.options.lingerMs) : this.options.lingerMs,
      );
    this.pump();
    return settled;
  }

  private markDue(): void {
    this.timer = undefined;
    if (this.open) this.open.due = true;
    this.pump();
  }

  private pump(): void {
    const batch = this.open;
    if (!batch?.due || this.inFlight >= this.options.maxInFlight) return;
    this.open = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight += 1;
    void this.write(batch).finally(() => {
      this.inFlight -= 1;
      this.pump();
    });
  }

  private async write(batch: Batch): Promise<void> {
    const ids = [...batch.products.keys()];
    const fallback = [...batch.fallbacks];
    try {
      const { stores } = await this.syncProducts(ids, fallback);
      for (const waiters of batch.products.values()) for (const w of waiters) w.resolve(stores);
      return;
    } catch (error) {
      // Only a refused write (a failed task) can be one product's fault; Meilisearch down or slow fails them all alike.
      if (ids.length === 1 || !this.isRefusal(error)) {
        for (const waiters of batch.products.values()) for (const w of waiters) w.reject(error);
        return;
      }
    }
    for (const [id, waiters] of batch.products) {
      try {
        const { stores } = await this.syncProducts([id], fallback);
        for (const w of waiters) w.resolve(stores);
      } catch (error) {
        for (const w of waiters) w.reject(error);
      }
    }
  }
}
