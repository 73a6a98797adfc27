/**
 * Exact totals of a subscription invoice (docs/decisions.md, Money): each line's amount is quantity ×
 * unit price, the subtotal their sum, VAT the subtotal × rate rounded half up to 2 decimals once, and
 * the total subtotal + VAT. Amounts are BigInt units of domain/money.ts, written back as decimal text.
 */
import { divideHalfUp, formatUnits, rescale, SCALE, toUnits } from '../../domain/money';
import type { InvoiceLine } from './billing.views';

/** The VAT rate of plan purchase invoices, in percent (plan prices are before VAT). */
export const PLAN_VAT_RATE = '20';

const RATE_SCALE = 3;

export interface InvoiceTotals {
  lines: InvoiceLine[];
  subtotal: string;
  vatAmount: string;
  total: string;
}

export function invoiceTotals(
  lines: Array<{ description: string; quantity: number; unitPrice: string | number }>,
  vatRate: string | number,
): InvoiceTotals {
  const priced = lines.map((line) => {
    const unit = toUnits(line.unitPrice);
    return { line, unit, amount: unit * BigInt(line.quantity) };
  });
  const subtotal = priced.reduce((sum, p) => sum + p.amount, 0n);
  const rate = toUnits(vatRate, RATE_SCALE);
  // subtotal (10^-4) × rate (10^-3 percent) / 100 → 10^-4 units, rounded half up to 2 decimals.
  const vatExact = divideHalfUp(subtotal * rate, 100n * 10n ** BigInt(RATE_SCALE));
  const vat = rescale(rescale(vatExact, SCALE, 2), 2, SCALE);
  return {
    lines: priced.map((p) => ({
      description: p.line.description,
      quantity: p.line.quantity,
      unitPrice: formatUnits(p.unit, SCALE),
      amount: formatUnits(p.amount, SCALE),
    })),
    subtotal: formatUnits(subtotal, SCALE),
    vatAmount: formatUnits(vat, SCALE),
    total: formatUnits(subtotal + vat, SCALE),
  };
}

/** An amount for display with exactly 2 decimals ("358.8" → "358.80"). */
export function twoDecimals(value: string): string {
  const text = formatUnits(rescale(toUnits(value), SCALE, 2), 2);
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}
