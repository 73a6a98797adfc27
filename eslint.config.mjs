// Linting runs in the test command (scripts/test). Type errors are tsc's job; this catches the rest,
// including an import that goes up a layer (docs/architecture.md, "Layers").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers, top to bottom, and what each folder may not import (everything above it, and the
 * folders beside it that it must not know). Tests and scripts may import anything.
 */
const LAYERS = {
  cli: ['app'],
  app: ['cli'],
  web: ['cli', 'app'],
  api: ['cli', 'app', 'web'],
  indexer: ['cli', 'app', 'web', 'api', 'vision', 'relay'],
  vision: ['cli', 'app', 'web', 'api', 'indexer', 'relay'],
  relay: ['cli', 'app', 'web', 'api', 'indexer', 'vision', 'search', 'domain'],
  search: ['cli', 'app', 'web', 'api', 'indexer', 'vision', 'relay'],
  domain: ['cli', 'app', 'web', 'api', 'indexer', 'vision', 'relay', 'search'],
  storage: ['cli', 'app', 'web', 'api', 'indexer', 'vision', 'relay', 'search', 'domain'],
  lib: ['cli', 'app', 'web', 'api', 'indexer', 'vision', 'relay', 'search', 'domain', 'storage'],
};

const layerRules = Object.entries(LAYERS)
  .filter(([, forbidden]) => forbidden.length > 0)
  .map(([folder, forbidden]) => ({
    files: [`${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: forbidden.flatMap((name) => [`../${name}`, `../${name}/**`, `**/../${name}`, `**/../${name}/**`]),
              message: `${folder}/ may not import ${forbidden.join(', ')} (layers: docs/architecture.md).`,
            },
          ],
        },
      ],
    },
  }));

export default tseslint.config(
  { ignores: ['dist/', 'dist-*/', 'node_modules/', '.data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', require: 'readonly', module: 'readonly', __dirname: 'readonly', console: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  ...layerRules,
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
