/** The shared building blocks of the route schemas (api/http/schema-types.ts). */
import { expect } from 'chai';
import { date } from '../../api/http/schema-types';
import { toJsonSchema } from '../../api/http/joi-json-schema';

describe('schema types', () => {
  it('takes only calendar dates that exist, written YYYY-MM-DD', () => {
    for (const good of ['2030-01-10', '2024-02-29', '1999-12-31']) expect(date().validate(good).error, good).to.equal(undefined);
    for (const bad of ['2030-02-30', '2023-02-29', '2030-04-31', '2030-13-01', '2030-1-1', '20300110', '2030-01-10T00:00:00Z']) {
      const { error } = date().label('day').validate(bad);
      expect(error?.message, bad).to.equal('"day" must be a date written YYYY-MM-DD');
    }
    expect(toJsonSchema(date())).to.deep.include({ type: 'string', format: 'date' });
  });
});
