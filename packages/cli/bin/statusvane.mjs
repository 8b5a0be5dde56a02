#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npx statusvane` works in a fresh clone after `npm ci`, without a build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
