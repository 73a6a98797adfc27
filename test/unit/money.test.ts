/**
 * The money rules defined once in domain/money.ts and used by every area: the decimals of a
 * currency's minor unit (pricing engine, bulk price edits) and the whole percent saved (product
 * views, search documents, storefront, flash sales), both exact, without floating point.
 */
import { expect } from 'chai';
import { discountPercent, minorUnit } from '../../domain/money';

describe('minorUnit', () => {
  it('answers the ISO 4217 decimals of a currency', () => {
    expect(minorUnit('EUR')).to.equal(2);
    expect(minorUnit('USD')).to.equal(2);
    expect(minorUnit('JPY')).to.equal(0);
    expect(minorUnit('KRW')).to.equal(0);
    expect(minorUnit('KWD')).to.equal(3);
    expect(minorUnit('BHD')).to.equal(3);
  });

  it('answers 2 for a code that is not a currency', () => {
    expect(minorUnit('EURO')).to.equal(2);
    expect(minorUnit('')).to.equal(2);
  });
});

describe('discountPercent', () => {
  it('is the whole percent saved, rounded half up', () => {
    expect(discountPercent('75.0000', '100.0000')).to.equal(25);
    expect(discountPercent('66.6700', '100')).to.equal(33); // 33.33
    expect(discountPercent('35', '40')).to.equal(13); // 12.5 → up
    expect(discountPercent('87.51', '100')).to.equal(12); // 12.49
    expect(discountPercent('0', '19.99')).to.equal(100);
    expect(discountPercent('0.0001', '100')).to.equal(100); // 99.9999
  });

  it('computes on exact decimals: no floating-point error at a half', () => {
    // 0.1 + 0.2 in floating point is 0.30000000000000004; 0.15 of 0.3 is exactly 50 %.
    expect(discountPercent('0.15', '0.3')).to.equal(50);
    expect(discountPercent('0.0035', '0.01')).to.equal(65);
    expect(discountPercent('0.995', '1.99')).to.equal(50);
  });

  it('is 0 without a compare-at price above the price', () => {
    expect(discountPercent('10', null)).to.equal(0);
    expect(discountPercent('10', '10')).to.equal(0);
    expect(discountPercent('10', '9.99')).to.equal(0);
    expect(discountPercent('0', '0')).to.equal(0);
  });
});
