/**
 * Exact money arithmetic for every area (no floating point on amounts: docs/decisions.md, Money).
 * Amounts are read as decimal strings from numeric columns and held as BigInt counts of 1/10 000
 * (the 4 decimals of numeric(14, 4)); results are rounded half up (half away from zero) to 2 decimals.
 */

/** Units of an amount: 1 = 0.0001. */
export const SCALE = 4;
/** Decimals of every computed total. */
export const RESULT_DECIMALS = 2;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * A decimal string ("12.5", "9.9900", "-3") or a JSON number already limited to `scale` decimals
 * (joi's precision rule), as a BigInt count of 10^-scale. More decimals than `scale` are refused.
 */
export function toUnits(value: string | number, scale = SCALE): bigint {
  const text = typeof value === 'number' ? value.toFixed(scale) : value.trim();
  const match = /^(-)?(\d+)(?:\.(\d*))?$/.exec(text);
  if (!match) throw new Error(`not a decimal amount: ${text}`);
  const [, sign, whole, fraction = ''] = match;
  if (fraction.replace(/0+$/, '').length > scale) throw new Error(`more than ${scale} decimals: ${text}`);
  const units = BigInt(whole!) * pow10(scale) + BigInt(fraction.padEnd(scale, '0') || '0');
  return sign ? -units : units;
}

/** `numerator / denominator` rounded half away from zero (denominator > 0). */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new Error('denominator must be positive');
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = (magnitude * 2n + denominator) / (denominator * 2n);
  return negative ? -quotient : quotient;
}

/** Units of scale `from` re-expressed in scale `to` (< from), rounded half away from zero. */
export function rescale(units: bigint, from: number, to: number): bigint {
  return to >= from ? units * pow10(to - from) : divideHalfUp(units, pow10(from - to));
}

/** The decimal string of `units` at `scale`, without trailing zeros ("25.47", "3", "-0.5"). */
export function formatUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The JSON number of `units` at `scale` (read from its exact decimal string; no arithmetic in floating point). */
export const unitsToNumber = (units: bigint, scale: number): number => Number(formatUnits(units, scale));

/**
 * Decimals of the currency's minor unit (ISO 4217 through Intl): EUR 2, JPY 0, KWD 3; 2 for a code
 * Intl does not know. Prices are rounded to it once, at the end (pricing engine, bulk price edits).
 */
export function minorUnit(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * Whole percent saved by `price` against `compareAt` (a compare-at price, or the normal price of a
 * sale price), rounded half up and computed on exact decimals; 0 unless `compareAt` is above `price`.
 */
export function discountPercent(price: string, compareAt: string | null): number {
  if (compareAt === null) return 0;
  const p = toUnits(price);
  const c = toUnits(compareAt);
  if (c <= 0n || c <= p) return 0;
  return Number(divideHalfUp((c - p) * 100n, c));
}
