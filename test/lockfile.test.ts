import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

// `npm ci` refuses a lock file that lacks any optional dependency, even one for another platform. The registry
// mirror of our build machines lacks some, so after `npm install` run `node scripts/complete-lockfile.mjs`.
describe('package-lock.json', () => {
  it('records every optional platform package, so `npm ci` accepts it', () => {
    const lock = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        const nested = path ? `${path}/node_modules/${dep}` : `node_modules/${dep}`;
        if (!lock.packages[nested] && !lock.packages[`node_modules/${dep}`])
          missing.push(`${dep} (from ${path || 'root'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
