// ESLint (flat config) with typescript-eslint's type-checked rules. Each TypeScript file is
// checked against the tsconfig beside it (src/, src/cli/, test/, test/node/, test/e2e/, root),
// so the Worker is linted with Worker types and the Node code with Node types.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.wrangler/', 'bench/out/', 'worker-configuration.d.ts', 'test/fixtures/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // An explicit list rather than the project service: the Node-only helpers in test/helpers/
        // belong to the test/node and test/e2e programs (they import them), not to the nearest
        // tsconfig (test/, the workerd suites, which have no Node types). A file is linted with
        // the first program that contains it, so the Worker's files come first.
        project: [
          './src/tsconfig.json',
          './src/cli/tsconfig.json',
          './test/tsconfig.json',
          './test/node/tsconfig.json',
          './test/e2e/tsconfig.json',
          './tsconfig.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      // `const { _meta: _ignored, ...rest } = x` is how the code drops a field; `_`-prefixed
      // parameters are deliberately unused (a callback's shape). Everything else unused is an error.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      // Off: `async` here marks a method whose contract is a Promise (Durable Object RPC methods,
      // webSocketClose, interface implementations). Dropping it to please the rule would turn a
      // throw into a synchronous throw for the caller.
      '@typescript-eslint/require-await': 'off',
      // Off: every site it reports is `String(x)` on a value narrowed from `unknown` (env vars,
      // upstream JSON), which TypeScript types as `{}`; the coercion is deliberate and the result
      // is validated after. Template literals stay covered by restrict-template-expressions.
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // Plain JavaScript (bench harnesses, the CLI launcher, conformance loader hooks): Node scripts
    // without type information.
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
  },
);
