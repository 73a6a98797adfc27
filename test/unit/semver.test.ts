/**
 * Semantic versions: the semver 2.0.0 grammar (valid and invalid examples of semver.org's own list)
 * and precedence (the ordered example chain of the specification, build metadata ignored, numbers
 * beyond the safe integers).
 */
import { expect } from 'chai';
import { compareVersions, isPrerelease, isSemVer, parseSemVer, SEMVER_MAX_LENGTH } from '../../domain/semver';

describe('semantic versions', () => {
  it('accepts the grammar of semver 2.0.0', () => {
    for (const valid of [
      '0.0.4',
      '1.2.3',
      '10.20.30',
      '1.1.2-prerelease+meta',
      '1.1.2+meta',
      '1.1.2+meta-valid',
      '1.0.0-alpha',
      '1.0.0-beta',
      '1.0.0-alpha.beta',
      '1.0.0-alpha.beta.1',
      '1.0.0-alpha.1',
      '1.0.0-alpha0.valid',
      '1.0.0-alpha.0valid',
      '1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay',
      '1.0.0-rc.1+build.1',
      '2.0.0-rc.1+build.123',
      '1.2.3-beta',
      '10.2.3-DEV-SNAPSHOT',
      '1.2.3-SNAPSHOT-123',
      '2.0.0+build.1848',
      '2.0.1-alpha.1227',
      '1.0.0-0A.is.legal',
      '1.0.0+0.build.1-rc.10000aaa-kk-0.1',
      '99999999999999999999999.999999999999999999.99999999999999999',
      '1.0.0-0A.is.legal',
      '1.2.3----RC-SNAPSHOT.12.9.1--.12+788',
      '1.0.0+001',
    ])
      expect(isSemVer(valid), valid).to.equal(true);
  });

  it('refuses what is not a semantic version', () => {
    for (const invalid of [
      '',
      '1',
      '1.2',
      '1.2.3-0123',
      '1.2.3-0123.0123',
      '1.1.2+.123',
      '+invalid',
      '-invalid',
      '-invalid+invalid',
      '-invalid.01',
      'alpha',
      'alpha.beta',
      '1.0.0-alpha..',
      '1.0.0-alpha..1',
      '01.1.1',
      '1.01.1',
      '1.1.01',
      '1.2.3.DEV',
      '1.2-SNAPSHOT',
      '1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788',
      '1.2-RC-SNAPSHOT',
      '-1.0.3-gamma+b7718',
      '+justmeta',
      '9.8.7+meta+meta',
      '9.8.7-whatever+meta+meta',
      'v1.2.3',
      ' 1.2.3',
      '1.2.3 ',
      '1.2.3\n',
      '1.2.3-beta\u0000',
      '1.2.3-ß',
      `1.0.0-${'a'.repeat(SEMVER_MAX_LENGTH)}`,
    ])
      expect(isSemVer(invalid), JSON.stringify(invalid)).to.equal(false);
  });

  it('parses the parts', () => {
    expect(parseSemVer('1.22.333-rc.1+build.5')).to.deep.equal({
      major: '1',
      minor: '22',
      patch: '333',
      prerelease: ['rc', '1'],
      build: ['build', '5'],
    });
    expect(isPrerelease(parseSemVer('1.0.0-0')!)).to.equal(true);
    expect(isPrerelease(parseSemVer('1.0.0+x')!)).to.equal(false);
  });

  it('orders by precedence: the chain of the specification, each lower than every later one', () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '1.9.0',
      '1.10.0',
      '2.0.0',
      '10.0.0',
      '18446744073709551616.0.0',
      '18446744073709551617.0.0',
    ];
    for (let i = 0; i < chain.length; i += 1)
      for (let j = 0; j < chain.length; j += 1)
        expect(compareVersions(chain[i]!, chain[j]!), `${chain[i]} vs ${chain[j]}`).to.equal(Math.sign(i - j));
  });

  it('ignores build metadata and compares numeric identifiers below alphanumeric ones', () => {
    expect(compareVersions('1.0.0+build.2', '1.0.0+build.1')).to.equal(0);
    expect(compareVersions('1.0.0-rc.1+a', '1.0.0-rc.1')).to.equal(0);
    expect(compareVersions('1.0.0-1', '1.0.0-a')).to.equal(-1);
    expect(compareVersions('1.0.0-a1', '1.0.0-1a')).to.equal(1);
    expect(compareVersions('1.0.0-B', '1.0.0-a')).to.equal(-1);
    expect(compareVersions('1.0.0-2', '1.0.0-10')).to.equal(-1);
    expect(() => compareVersions('1.0', '1.0.0')).to.throw(/not a semantic version/);
  });
});
