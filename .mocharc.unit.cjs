// The unit tests (npm run test:unit): test/unit, as built in dist/test/unit. They need no PostgreSQL,
// Redis or Meilisearch, so there is no root hook (test/helpers/root-hooks.js closes the runtime the
// service tests share). The files come from the sources: a test moved out of test/unit that an
// earlier build left in dist/test/unit is not run.
// Node's own modules without require() (the project lints every require): node >= 20.16.
const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

const spec = fs
  .readdirSync(path.join(__dirname, 'test', 'unit'))
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `dist/test/unit/${file.replace(/\.ts$/, '.js')}`);

module.exports = { spec, timeout: 10_000, slow: 500, reporter: 'spec', 'enable-source-maps': true };
