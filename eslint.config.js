// ESLint (flat config) with typescript-eslint's type-checked rules. Each TypeScript file is
// checked against the tsconfig beside it (src/, cli/, test/, test/node/, test/e2e/, root),
// so the Worker is linted with Worker types and the Node code with Node types.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.wrangler/',
      '.tmp/',
      'bench/out/',
      'worker-configuration.d.ts',
      'test/fixtures/',
    ],
  },
  js.configs.recommended,
  {
    // `catch {}` is how best-effort steps (cleanup, parsing a line that may not be JSON) say they
    // ignore a failure; an empty block anywhere else is still an error.
    rules: { 'no-empty': ['error', { allowEmptyCatch: true }] },
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // An explicit list rather than the project service: the Node-only helpers in test/helpers/
        // belong to the test/node and test/e2e programs (they import them), not to the nearest
        // tsconfig (test/, the workerd suites, which have no Node types). A file is linted with
        // the first program that contains it, so the Worker's files come first.
        project: [
          './src/tsconfig.json',
          './cli/tsconfig.json',
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
    // The suites read JSON replies off the wire and poke into them (`body.result.prompts[0].name`);
    // the expect() that follows is the type check there, and a wrong path fails the test. Typing
    // each reply (75 `any` sites, ~390 no-unsafe-* reports) is churn without a defect to find.
    // The Worker, the CLI and scripts/ keep every one of these rules as an error.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // Only where wire JSON is read; test/unit and test/node have no `any` and keep the rule.
    files: ['test/flow/**/*.ts', 'test/e2e/**/*.ts', 'test/helpers/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The e2e suites run in Node, but their program carries the generated Worker types (the Worker
    // sources they import name `Env`), so fetch's Response looks like the Workers one with a generic
    // json<T>(). The rule would turn `(await res.json()) as T` into `res.json<T>()`, which leans on
    // a signature Node's Response does not have. The same holds for the helpers both the workerd
    // and the e2e suites import (test/helpers/).
    files: ['test/e2e/**/*.ts', 'test/helpers/**/*.ts'],
    rules: { '@typescript-eslint/no-unnecessary-type-assertion': 'off' },
  },
  {
    // Plain JavaScript (bench harnesses, the CLI launcher, conformance loader hooks): Node scripts
    // without type information.
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
  },
);
