/**
 * Outage logging stays calm: a failure that repeats is logged once in full and then counted, one
 * summary line per window; a different failure is logged at once; an unreachable dependency is
 * logged without a stack trace, a real bug keeps its stack.
 */
import { expect } from 'chai';
import { CalmLog, isUnreachableError, loggableError } from '../../lib/calm-log';
import { captureLog } from '../helpers/log-capture';

const capture = () => captureLog('info');

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7700'), { code: 'ECONNREFUSED' });

describe('calm outage logging', () => {
  it('logs 1,000 identical failures as one line plus one summary with the count', () => {
    const { logger, lines } = capture();
    const calm = new CalmLog(logger, 60_000);
    for (let i = 0; i < 1_000; i += 1) calm.warn('consumer:index', refused(), { queue: 'index' }, 'consumer failed');
    expect(lines()).to.have.length(1);
    calm.flush();
    const all = lines();
    expect(all).to.have.length(2);
    expect(all[1]).to.include({ msg: 'consumer failed (repeated)', repeated: 999, queue: 'index' });
    calm.close();
  });

  it('logs a different kind of failure at once, and again after a window with none', () => {
    const { logger, lines } = capture();
    const calm = new CalmLog(logger, 60_000);
    calm.warn('consumer:index', refused(), {}, 'consumer failed');
    calm.warn('consumer:index', new TypeError('x is undefined'), {}, 'consumer failed');
    calm.warn('relay:pass', refused(), {}, 'relay failed');
    expect(lines()).to.have.length(3);
    calm.flush();
    expect(lines()).to.have.length(3);
    calm.warn('consumer:index', refused(), {}, 'consumer failed');
    expect(lines()).to.have.length(4);
    calm.close();
  });

  it('drops the stack of an unreachable dependency and keeps the stack of a bug', () => {
    expect(isUnreachableError(refused())).to.equal(true);
    expect(isUnreachableError(new Error('Connection terminated unexpectedly'))).to.equal(true);
    expect(isUnreachableError(Object.assign(new Error('fetch failed'), { cause: refused() }))).to.equal(true);
    expect(isUnreachableError(new TypeError('x is undefined'))).to.equal(false);
    expect(loggableError(refused())).to.deep.equal({ type: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:7700' });
    const bug = new TypeError('x is undefined');
    expect(loggableError(bug)).to.equal(bug);
  });
});
