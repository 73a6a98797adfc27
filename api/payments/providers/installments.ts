/**
 * Installment options of the payment simulator by card BIN (docs/payments.md, "Installments"). The
 * BIN is the card number's first 6 to 8 digits; the longest matching prefix of INSTALLMENT_BINS
 * decides the counts offered. A count's rate (basis points of the amount) is what the provider adds
 * for spreading the payment; amounts are exact decimals: the total is rounded half up to the
 * currency's minor unit, each installment is the total divided by the count rounded down, and the last
 * installment carries the rounding difference (total − perInstallment × (count − 1)).
 */
import { divideHalfUp, formatUnits, minorUnit, rescale, toUnits, SCALE } from '../../../domain/money';
import type { InstallmentOption } from './port';

/** Rate in basis points (1/100 of a percent) by installment count. */
export const INSTALLMENT_RATES_BP: Readonly<Record<number, number>> = { 1: 0, 2: 150, 3: 250, 6: 500, 9: 750, 12: 1000 };

/** BIN prefixes and the counts their card programmes offer; any other BIN: a single payment only. */
export const INSTALLMENT_BINS: ReadonlyArray<{ prefix: string; program: string; counts: readonly number[] }> = [
  { prefix: '555555', program: 'Mastercard credit (iyzico test cards)', counts: [1, 2, 3, 6, 9, 12] },
  { prefix: '510510', program: 'Mastercard credit', counts: [1, 2, 3, 6, 9, 12] },
  { prefix: '411111', program: 'Visa credit', counts: [1, 2, 3, 6, 9, 12] },
  { prefix: '424242', program: 'Visa credit', counts: [1, 2, 3, 6] },
  { prefix: '40000027', program: 'Visa credit (3-D Secure test card)', counts: [1, 2, 3, 6] },
  { prefix: '513633', program: 'Mastercard credit', counts: [1, 3, 6, 9] },
  { prefix: '491761', program: 'Visa credit', counts: [1, 3, 6, 9] },
  { prefix: '440000', program: 'Visa debit', counts: [1] },
  { prefix: '34', program: 'American Express (no installments)', counts: [1] },
  { prefix: '37', program: 'American Express (no installments)', counts: [1] },
];

export function installmentCountsFor(bin: string): readonly number[] {
  let best: { prefix: string; counts: readonly number[] } | undefined;
  for (const row of INSTALLMENT_BINS) if (bin.startsWith(row.prefix) && (!best || row.prefix.length > best.prefix.length)) best = row;
  return best?.counts ?? [1];
}

export function installmentOptions(bin: string, amount: string, currency: string): InstallmentOption[] {
  const decimals = minorUnit(currency);
  const amountMinor = rescale(toUnits(amount), SCALE, decimals);
  return installmentCountsFor(bin).map((count) => {
    const rate = BigInt(INSTALLMENT_RATES_BP[count] ?? 0);
    const total = divideHalfUp(amountMinor * (10_000n + rate), 10_000n);
    const per = total / BigInt(count);
    return { count, perInstallment: formatUnits(per, decimals), total: formatUnits(total, decimals) };
  });
}
