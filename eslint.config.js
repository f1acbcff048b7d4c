// ESLint with typescript-eslint's type-checked rules: a daemon must not lose a rejection.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // test/fixtures holds inputs (recordings, and plain CommonJS stand-ins for the speaker module), not project code.
  { ignores: ['dist/', 'bench/dist/', 'bench/results/', 'coverage/', '**/node_modules/', 'eslint.config.js', '.dependency-cruiser.cjs', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // node-record-lpcm16 loads recorder definitions with require(): they are CommonJS by necessity.
    files: ['**/*.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off', '@typescript-eslint/no-namespace': 'off' },
  },
  {
    // Install-time scripts run by plain Node (no build): CommonJS, linted without type information.
    files: ['scripts/**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly', module: 'writable' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Build-time scripts run by plain Node: ES modules, linted without type information.
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly' },
    },
  },
  {
    // The status page's scripts run in the browser as they are (no build): ES modules, linted without type information.
    files: ['assets/web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        EventSource: 'readonly',
        ResizeObserver: 'readonly',
        CSS: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        uPlot: 'readonly',
      },
    },
  },
  {
    // vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed `any`; fakes and
    // benchmark stubs keep the async shape of what they stand in for.
    files: ['test/**/*.ts', 'bench/src/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off', '@typescript-eslint/require-await': 'off' },
  },
);
