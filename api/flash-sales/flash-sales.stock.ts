/**
 * Flash-sale stock caps: orders record what they sold at a flash price, in their own transaction.
 *
 * `recordFlashSaleSales(tx, lines)` takes the lines priced by `priceLines` (domain/pricing-engine.ts).
 * For each line whose price came from a campaign's product entry it adds the quantity to the entry's
 * soldCount in one guarded UPDATE (soldCount + quantity ≤ stockCap), so two orders racing for the last
 * units cannot both get them: the loser gets 409 flash_sale_sold_out and should re-price. The line that
 * reaches the cap queues the product for re-indexing (its effective price goes back to normal).
 * Lines priced through a campaign's category (no caps) are not counted.
 */
import type { FlashSaleMatch } from '../../domain/pricing-engine';
import { enqueueRepricing } from '../pricing/reprice';
import type { RequestContext } from '../../storage/request-context';
import { flashSalesError } from './flash-sales.errors';

export interface SoldLine {
  productId: string;
  quantity: number;
  flashSale: FlashSaleMatch | null;
}

export async function recordFlashSaleSales(tx: RequestContext, lines: readonly SoldLine[]): Promise<void> {
  if (!tx.inTransaction) throw new Error('recordFlashSaleSales must run inside the order transaction (use inTransaction)');
  for (const line of lines) {
    if (!line.flashSale || line.flashSale.kind !== 'PRODUCT') continue;
    const rows: Array<{ sold_count: number; stock_cap: number | null }> = await tx.manager.query(
      // Wrapped in a SELECT so the driver returns the rows (an UPDATE answers [rows, count]).
      `WITH u AS (
         UPDATE flash_sale_items SET sold_count = sold_count + $3
          WHERE campaign_id = $1 AND target_id = $2 AND kind = 'PRODUCT' AND (stock_cap IS NULL OR sold_count + $3 <= stock_cap)
          RETURNING sold_count, stock_cap)
       SELECT * FROM u`,
      [line.flashSale.campaignId, line.productId, line.quantity],
    );
    const row = rows[0];
    if (!row) {
      throw flashSalesError('flash_sale_sold_out', 'The flash sale has not enough units left at its price for this line; price it again.', [
        { path: 'productId', message: line.productId },
      ]);
    }
    if (row.stock_cap !== null && row.sold_count >= row.stock_cap && tx.tenantId) {
      await enqueueRepricing(tx.manager, tx.tenantId, [line.productId], {
        flashSaleCampaignId: line.flashSale.campaignId,
        change: 'sold_out',
      });
    }
  }
}
