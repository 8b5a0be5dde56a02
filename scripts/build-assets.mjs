// The browser assets (apps/api/client: the console's enhancement script and stylesheet, the status page's stylesheet and local-time script, the docs' stylesheet), bundled and minified
// by esbuild into apps/api/dist/assets/ with content-hashed names, and a manifest (apps/api/dist/assets-manifest.json)
// mapping each logical name (`console.js`, `console.css`, `status-page.css`, `status-page.js`, `docs.css`, `favicon.svg`) to its file. Run by `npm run build`, by the integration
// tests' global setup, and by the API itself when a checkout never built them (apps/api/src/views/assets.ts).
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the assets; resolves to the manifest. */
export async function buildAssets() {
  const { build } = await import('esbuild');
  const outdir = join(root, 'apps/api/dist/assets');
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [
      { in: 'apps/api/client/console.ts', out: 'console' },
      { in: 'apps/api/client/console.css', out: 'console' },
      { in: 'apps/api/client/status-page.css', out: 'status-page' },
      { in: 'apps/api/client/status-page.ts', out: 'status-page' },
      { in: 'apps/api/client/docs.css', out: 'docs' },
      { in: 'apps/api/client/favicon.svg', out: 'favicon' },
    ],
    loader: { '.svg': 'copy' },
    outdir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'iife',
    // Browsers of the last few years; nothing the console relies on needs more.
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const manifest = {};
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    manifest[`${basename(meta.entryPoint, extname(meta.entryPoint))}${extname(file)}`] = basename(file);
  }
  // Written whole, then moved into place: a server starting meanwhile reads the old manifest or the new one.
  const target = join(root, 'apps/api/dist/assets-manifest.json');
  await writeFile(`${target}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${target}.tmp`, target);
  return manifest;
}

// No top-level await: the tests' global setup loads this file with require() (Node 20's require of an ES module).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildAssets().then(
    (manifest) => process.stderr.write(`[build-assets] ${Object.values(manifest).join(', ')}\n`),
    (err) => {
      process.stderr.write(`[build-assets] ${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
