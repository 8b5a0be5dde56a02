// ESLint (flat config) with typescript-eslint's type-aware rules. Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import serviceShape from './eslint-service-shape.js';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '.data/',
      'coverage/',
      'test-artifacts/',
      'packages/shared/src/generated/',
      'packages/sdk/src/generated/',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      // One program for every file: the root tsconfig holds apps, packages, tests, bench and scripts. The project
      // service opened each workspace's own tsconfig besides (apps/api, apps/worker, packages/shared), so their files
      // were parsed and type-checked in two or more programs: about a fifth of ESLint's CPU time.
      // The console's browser code (apps/api/client) has its own program: the DOM's types, not Node's.
      parserOptions: {
        project: ['./tsconfig.json', './apps/api/client/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      // The SSRF guard and the header checks match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // One shape for every request service, told apart from records and helpers by file name (services/README.md).
    files: ['apps/api/src/services/*/*.ts'],
    ignores: ['**/*.spec.ts'],
    plugins: { statusvane: { rules: { 'service-shape': serviceShape } } },
    rules: { 'statusvane/service-shape': 'error' },
  },
  {
    // Tool configs outside the root tsconfig: no program, so no type-aware rules.
    files: ['*.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
  // Last: turns off the rules that disagree with Prettier's output.
  prettier,
);
