/**
 * The result cache's invalidation stamps (search/result-cache.ts): a value computed while its store
 * was invalidated is not kept, whichever cache of the process was invalidated; other stores' values
 * are, and so are values computed after the invalidation.
 */
import { expect } from 'chai';
import { cacheStamp, ResultCache } from '../../search/result-cache';

const cache = (): ResultCache<string> => new ResultCache<string>({ maxBytes: 1 << 20, ttlMs: 60_000 });

describe('result cache: values computed across an invalidation', () => {
  it('keeps nothing computed before its store was invalidated, and keeps what other stores computed meanwhile', () => {
    const answers = cache();
    const since = cacheStamp();
    answers.invalidateStore('s1');
    answers.set('s1', 'a', 'stale', 100, { since });
    answers.set('s2', 'b', 'fine', 100, { since });
    expect(answers.get('a')).to.equal(undefined);
    expect(answers.get('b')).to.equal('fine');
    // Computed after the invalidation: kept.
    answers.set('s1', 'a', 'fresh', 100, { since: cacheStamp() });
    expect(answers.get('a')).to.equal('fresh');
  });

  it('keeps nothing computed before the whole cache was cleared', () => {
    const answers = cache();
    const since = cacheStamp();
    answers.clear();
    answers.set('s1', 'a', 'stale', 100, { since });
    expect(answers.size).to.equal(0);
  });

  it('shares one clock between caches: a stamp taken before one cache is invalidated is stale there only', () => {
    const answers = cache();
    const counts = cache();
    const since = cacheStamp();
    counts.invalidateStore('s1');
    answers.set('s1', 'a', 'kept', 100, { since });
    counts.set('s1', 'a', 'stale', 100, { since });
    expect([answers.get('a'), counts.get('a')]).to.deep.equal(['kept', undefined]);
  });

  it('keeps nothing computed before a forgotten invalidation (more than 10 000 stores invalidated since)', () => {
    const answers = cache();
    const before = cacheStamp();
    answers.invalidateStore('s1');
    const between = cacheStamp();
    for (let i = 0; i < 10_000; i += 1) answers.invalidateStore(`other-${i}`);
    // s1's invalidation is forgotten now: a value computed before it is still refused, one computed after it kept.
    answers.set('s1', 'a', 'stale', 100, { since: before });
    expect(answers.get('a')).to.equal(undefined);
    answers.set('s1', 'a', 'fresh', 100, { since: between });
    expect(answers.get('a')).to.equal('fresh');
  });

  it('keeps a value set without a stamp as before', () => {
    const answers = cache();
    answers.invalidateStore('s1');
    answers.set('s1', 'a', 'A', 100);
    expect(answers.get('a')).to.equal('A');
  });
});
