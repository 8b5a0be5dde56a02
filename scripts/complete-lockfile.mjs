// Completes package-lock.json with the platform-specific optional packages that the npm registry mirror serving
// our build machines does not carry (darwin, win32, exotic linux builds of @swc/core, unrs-resolver,
// msgpackr-extract). npm records every optional dependency in the lock file and `npm ci` refuses a lock file
// that lacks one, even though it would never install it on this platform. The stub entries carry what npm needs
// to skip them (version, os, cpu, libc, optional) and nothing it could fetch. Run after `npm install`:
//   node scripts/complete-lockfile.mjs
// See docs/adr/0007-lockfile-and-registry-mirror.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'sunos', 'netbsd', 'openbsd', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32', 'mips64el'];

/** Reads os, cpu and libc from a platform package's name (`@swc/core-linux-arm-gnueabihf`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return null;
  const libc = parts.some((p) => p.startsWith('musl'))
    ? 'musl'
    : parts.some((p) => p.startsWith('gnu'))
      ? 'glibc'
      : null;
  return { os: [os], cpu: [cpu], ...(libc && os === 'linux' ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[base] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(range)) continue;
    packages[`node_modules/${dep}`] = { version: range, ...platform, optional: true };
    added++;
  }
}
// Keep npm's ordering (sorted keys) so the diff stays small.
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.error(`[complete-lockfile] added ${added} platform stub(s)`);
