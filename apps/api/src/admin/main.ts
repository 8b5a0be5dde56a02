#!/usr/bin/env node
// The admin CLI's process (`npm run -s admin -- ...`, scripts/admin.mjs): the commands are in cli.ts.
import { describeFailure, runAdmin } from './cli.js';

runAdmin(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(describeFailure(err));
    process.exit(1);
  },
);
