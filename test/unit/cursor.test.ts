/**
 * The keyset cursor module: a cursor reads back only when it is exactly what `encodeCursor`
 * writes, and the part checks refuse what PostgreSQL would not read (dates outside its range or
 * not as the lists write them, NULs, numbers that are not finite, ids that are not UUIDs).
 */
import { expect } from 'chai';
import { decodeCursor, encodeCursor, isBigint, isDate, isDecimal, isPgTimestamp, isUuid } from '../../api/http/cursor';
import { ValidationError } from '../../lib/errors';

const ID = '0192f4c0-0000-7000-8000-000000000001';

describe('keyset cursors', () => {
  const read = (cursor: string): unknown => {
    try {
      return decodeCursor(cursor, { accepts: ([at, id]) => isDate(at) && isUuid(id) });
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError & { errors: Array<{ path: string }> }).errors.map((e) => e.path)).to.deep.equal(['query.cursor']);
      return 'refused';
    }
  };

  it('reads back what it wrote', () => {
    const at = new Date().toISOString();
    expect(read(encodeCursor([at, ID]))).to.deep.equal([at, ID]);
  });

  it('refuses dates PostgreSQL would not read the same, NULs, non-canonical spellings and garbage', () => {
    const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
    for (const cursor of [
      encodeCursor(['+275760-09-13T00:00:00.000Z', ID]),
      encodeCursor(['-271821-04-20T00:00:00.000Z', ID]),
      encodeCursor(['2026-01-01T00:00:00.000Z\u0000', ID]),
      encodeCursor(['2026-02-29T00:00:00.000Z', ID]),
      encodeCursor(['2026-01-01T00:00:00Z', ID]),
      encodeCursor(['2026-01-01T00:00:00.000Z', `${ID}\u0000`]),
      encodeCursor(['2026-01-01T00:00:00.000Z', 'x']),
      b64(`[ "2026-01-01T00:00:00.000Z", "${ID}" ]`),
      b64(`["2026-01-01T00:00:00.000Z","${ID}"]`) + '==',
      Buffer.from(`["2026-01-01T00:00:00.000Z","${ID}"]`).toString('base64'),
      b64('[1,2]'),
      b64('{}'),
      'not base64!',
      '',
    ]) {
      expect(read(cursor), cursor).to.equal('refused');
    }
  });

  it('checks each kind of part', () => {
    expect(['2026-01-02 03:04:05.123456+00', '2024-02-29 00:00:00+05:30', '0001-01-01 00:00:00+00'].every(isPgTimestamp)).to.equal(true);
    for (const value of [
      '2026-02-30 00:00:00+00',
      '2026-01-01 24:00:00+00',
      '+275760-09-13 00:00:00+00',
      '2026-01-01T00:00:00Z',
      '0000-01-01 00:00:00+00',
    ])
      expect(isPgTimestamp(value), value).to.equal(false);
    expect(['0', '12.5000', '-3.25'].every(isDecimal)).to.equal(true);
    for (const value of ['1e999', 'Infinity', 'NaN', '', '1.', '.5', '1e5']) expect(isDecimal(value), value).to.equal(false);
    expect(['0', '-9223372036854775808', '9223372036854775807'].every(isBigint)).to.equal(true);
    for (const value of ['9223372036854775808', '-9223372036854775809', '1.5', '']) expect(isBigint(value), value).to.equal(false);
  });
});
