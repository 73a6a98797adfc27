/**
 * Identifiers (docs/decisions.md, Identifiers): uuidv7() makes RFC 9562 version 7 ids whose string
 * order is their creation order (so they serve as cursors), and UUID_PATTERN (storage/ids.ts) is the
 * one definition of "a UUID" everywhere one is checked: versions 1 to 8 with the RFC variant, plus
 * the nil and max UUIDs, in either case. The API, the indexer, the vision worker and the web pages all use it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import type { Meilisearch } from 'meilisearch';
import { isUuid, UUID_PATTERN, uuidv7 } from '../../storage/ids';
import { UUID_PATTERN as API_UUID_PATTERN } from '../../api/http/schema-types';
import { createIndexHandler } from '../../indexer/index-consumer';
import { createVisionHandler } from '../../vision/worker';
import { searchKeyUid } from '../../search/meili';

const V7_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit Unix millisecond prefix of a UUIDv7. */
function millisOf(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

describe('uuidv7()', () => {
  it('writes version 7 with the 10xx variant, lower case, 36 characters', () => {
    for (let i = 0; i < 1000; i += 1) {
      const id = uuidv7();
      expect(id).to.match(V7_FORMAT);
      expect(id[14]).to.equal('7');
      expect(parseInt(id[19]!, 16) >> 2, id).to.equal(0b10);
    }
  });

  it("is accepted by the API's UUID_PATTERN", () => {
    for (let i = 0; i < 100; i += 1) expect(uuidv7()).to.match(UUID_PATTERN);
  });

  it('starts with the current Unix time in milliseconds', async () => {
    // Let any counter overflow of an earlier burst fall behind the clock first.
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < 20; i += 1) {
      const before = Date.now();
      const id = uuidv7();
      const after = Date.now();
      expect(millisOf(id)).to.be.within(before, after + 2);
      await new Promise((resolve) => setTimeout(resolve, 1)); // spreads the samples over several milliseconds
    }
  });

  it('keeps strictly increasing string order for 10,000 ids made in a tight loop', () => {
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i += 1) ids.push(uuidv7());
    for (let i = 1; i < ids.length; i += 1) {
      if (!(ids[i - 1]! < ids[i]!)) expect.fail(`id ${i} (${ids[i]}) does not sort after id ${i - 1} (${ids[i - 1]})`);
    }
    expect(new Set(ids).size).to.equal(ids.length);
    // Sorting by string is sorting by creation.
    expect([...ids].sort()).to.deep.equal(ids);
  });

  it('keeps increasing when the clock steps back', () => {
    const first = uuidv7();
    const afterStepBack = uuidv7(Date.now() - 60_000);
    const next = uuidv7();
    expect(afterStepBack > first, `${afterStepBack} > ${first}`).to.equal(true);
    expect(next > afterStepBack, `${next} > ${afterStepBack}`).to.equal(true);
    expect(afterStepBack).to.match(V7_FORMAT);
  });
});

describe('UUID_PATTERN', () => {
  const variantChars = ['8', '9', 'a', 'b'];

  it('accepts versions 1 to 8 with variants 8, 9, a and b', () => {
    for (let version = 1; version <= 8; version += 1) {
      for (const variant of variantChars) {
        const id = `3b241101-e2bb-${version}255-${variant}caf-4136c566a962`;
        expect(UUID_PATTERN.test(id), id).to.equal(true);
      }
    }
  });

  it('accepts upper and mixed case', () => {
    expect(UUID_PATTERN.test('3B241101-E2BB-4255-8CAF-4136C566A962')).to.equal(true);
    expect(UUID_PATTERN.test('0190A5F0-8b7c-7DEF-B123-456789abcdef')).to.equal(true);
  });

  it('accepts the nil UUID and the max UUID (in either case)', () => {
    expect(UUID_PATTERN.test('00000000-0000-0000-0000-000000000000')).to.equal(true);
    expect(UUID_PATTERN.test('ffffffff-ffff-ffff-ffff-ffffffffffff')).to.equal(true);
    expect(UUID_PATTERN.test('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')).to.equal(true);
  });

  it('rejects versions 0 and 9 to f (other than nil and max)', () => {
    for (const version of ['0', '9', 'a', 'c', 'f']) {
      const id = `3b241101-e2bb-${version}255-8caf-4136c566a962`;
      expect(UUID_PATTERN.test(id), id).to.equal(false);
    }
    expect(UUID_PATTERN.test('00000000-0000-0000-0000-000000000001'), 'almost nil').to.equal(false);
    expect(UUID_PATTERN.test('ffffffff-ffff-ffff-ffff-fffffffffffe'), 'almost max').to.equal(false);
  });

  it('rejects the variants 0-7 (NCS), c-d (Microsoft) and e-f (reserved)', () => {
    for (const variant of ['0', '7', 'c', 'd', 'e', 'f']) {
      const id = `3b241101-e2bb-4255-${variant}caf-4136c566a962`;
      expect(UUID_PATTERN.test(id), id).to.equal(false);
    }
  });

  it('rejects wrong lengths, missing or misplaced hyphens, braces, prefixes and surrounding text', () => {
    const bad = [
      '3b241101-e2bb-4255-8caf-4136c566a96', // 35 characters
      '3b241101-e2bb-4255-8caf-4136c566a9621', // 37 characters
      '3b241101e2bb42558caf4136c566a962', // no hyphens
      '3b241101-e2bb42558caf-4136c566a962',
      '3b241101e-2bb-4255-8caf-4136c566a962',
      '{3b241101-e2bb-4255-8caf-4136c566a962}',
      'urn:uuid:3b241101-e2bb-4255-8caf-4136c566a962',
      ' 3b241101-e2bb-4255-8caf-4136c566a962',
      '3b241101-e2bb-4255-8caf-4136c566a962\n',
      '3b241101-e2bb-4255-8caf-4136c566a96g',
      '',
    ];
    for (const id of bad) expect(UUID_PATTERN.test(id), JSON.stringify(id)).to.equal(false);
  });
});

describe('isUuid and the modules that check ids', () => {
  it("is the API's pattern: one definition, not a copy", () => {
    expect(API_UUID_PATTERN).to.equal(UUID_PATTERN);
  });

  it('accepts what UUID_PATTERN accepts and nothing that is not a string', () => {
    for (const id of [
      uuidv7(),
      randomUUID(),
      searchKeyUid('a master key'),
      '00000000-0000-0000-0000-000000000000',
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    ]) {
      expect(isUuid(id), id).to.equal(true);
    }
    for (const value of [
      '3b241101-e2bb-0255-8caf-4136c566a962',
      '3b241101-e2bb-4255-ccaf-4136c566a962',
      '{3b241101-e2bb-4255-8caf-4136c566a962}',
      undefined,
      null,
      42,
      ['3b241101-e2bb-4255-8caf-4136c566a962'],
    ]) {
      expect(isUuid(value), JSON.stringify(value)).to.equal(false);
    }
  });

  /** Deliveries whose aggregate id is not a UUID by the one pattern (a version 0 id; a variant c id; no hyphens). */
  const notUuids = ['3b241101-e2bb-0255-8caf-4136c566a962', '3b241101-e2bb-4255-ccaf-4136c566a962', '3b241101e2bb42558caf4136c566a962'];
  /** A product delivery, typed as whichever handler it is given to expects. */
  const delivery = <D>(aggregateId: string): D =>
    ({ queue: 'index', aggregateType: 'product', aggregateId, tenantId: null, messages: [] }) as unknown as D;
  /** A database that must not be reached: a refused id is acknowledged before any query. */
  const noDatabase = new Proxy({}, { get: () => () => expect.fail('the database was queried') }) as unknown as DataSource;

  it('the indexer and the vision worker acknowledge a delivery whose aggregate id the pattern refuses, without work', async () => {
    const warned: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warned.push(JSON.parse(line).msg) });
    const index = createIndexHandler({ dataSource: noDatabase, meili: {} as Meilisearch, logger });
    const vision = createVisionHandler({
      dataSource: noDatabase,
      logger,
      config: {} as never,
      embedderFor: () => expect.fail('the embedder was loaded'),
    });
    for (const id of notUuids) {
      await index(delivery(id));
      await vision(delivery(id));
    }
    expect(warned).to.deep.equal(
      notUuids.flatMap(() => [
        'index: aggregate id is not a UUID; acknowledged without indexing',
        'vision: unknown aggregate; acknowledged',
      ]),
    );
  });
});
