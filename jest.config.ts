/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// Jest runs in ESM mode (node --experimental-vm-modules): got and the generated Prisma client are ESM-only.
const common = {
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } },
    ],
    // Views (apps/api/src/views, apps/api/src/console): JSX rendered on the server by preact, as tsconfig says.
    '^.+\\.tsx$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          target: 'es2023',
          transform: { react: { runtime: 'automatic', importSource: 'preact' } },
        },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: {
    '^@statusvane/shared$': '<rootDir>/packages/shared/src/index.ts',
    '^@statusvane/sdk$': '<rootDir>/packages/sdk/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  // What Jest's file map crawls at start and hands to every worker: our sources, not node_modules or .data (a
  // PostgreSQL data directory, bench output: some 80,000 files, about 2 s of lstat calls a run). Packages still
  // resolve from node_modules.
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/test', '<rootDir>/bench', '<rootDir>/scripts'],
} satisfies Config;

const config: Config = {
  // Integration tests drive real servers and queues; pure specs finish in milliseconds either way.
  testTimeout: 20_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.spec.{ts,tsx}', '<rootDir>/bench/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/worker-database.ts'],
    },
  ],
};
export default config;
