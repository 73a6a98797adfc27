/** A configuration error never echoes a secret: keys and secrets are hidden, URL passwords masked. */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../lib/config';

describe('configuration errors and secrets', () => {
  it('hides secret values and masks passwords in URLs', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        APP_SECRET: 'too-short-secret',
        MEILI_MASTER_KEY: 'short-key',
        DATABASE_URL: 'mysql://app:hunter2hunter2@db/shop',
        SMTP_URL: 'http://mail:pa55word@smtp',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect(error!.message).not.to.include('too-short-secret');
    expect(error!.message).not.to.include('short-key');
    expect(error!.message).not.to.include('hunter2hunter2');
    expect(error!.message).not.to.include('pa55word');
    expect(error!.message).to.include('APP_SECRET=(hidden)');
    expect(error!.message).to.include('DATABASE_URL="mysql://app:***@db/shop"');
  });
});
