import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderedAnswer, type RenderedAnswer } from '../middleware/rendered-answer.js';

/** Where the console's built files are served; names carry a content hash, so they are cached for a year. */
export const ASSETS_PATH = '/app/assets';

/** apps/api, from src/views (tests, tsx) and from dist/views (the build) alike. */
const API_ROOT = resolve(import.meta.dirname, '..', '..');
const ASSETS_DIR = join(API_ROOT, 'dist', 'assets');
const MANIFEST = join(API_ROOT, 'dist', 'assets-manifest.json');
const BUILD_SCRIPT = join(API_ROOT, '..', '..', 'scripts', 'build-assets.mjs');

/** The URLs a page links: the console's stylesheet and script, the status page's and the docs' stylesheets, the icon. */
export interface AssetUrls {
  css: string;
  js: string;
  icon: string;
  statusCss: string;
  /** The status page's optional script: times in the visitor's zone. */
  statusJs: string;
  docsCss: string;
}

export interface AssetFile {
  /** The file, and its encoded copies (made on first use). */
  answer: RenderedAnswer;
  type: string;
}

export interface Assets {
  urls: AssetUrls;
  /** Served files by hashed name: only these names are answered (no path from a request reaches the disk). */
  files: ReadonlyMap<string, AssetFile>;
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

async function readManifest(): Promise<Record<string, string> | null> {
  try {
    return JSON.parse(await readFile(MANIFEST, 'utf8')) as Record<string, string>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

let loading: Promise<Assets> | undefined;

/**
 * The built assets (`npm run build` writes them: scripts/build-assets.mjs), read once into memory. A checkout where
 * they were never built (a clean clone running from source) builds them on first use, with esbuild from the dev
 * dependencies; a production image always has them from its build step.
 */
export function loadAssets(): Promise<Assets> {
  loading ??= (async () => {
    let manifest = await readManifest();
    if (!manifest) {
      const { buildAssets } = (await import(pathToFileURL(BUILD_SCRIPT).href)) as {
        buildAssets: () => Promise<unknown>;
      };
      await buildAssets();
      manifest = await readManifest();
      if (!manifest) throw new Error(`the console's assets were built but ${MANIFEST} is missing`);
    }
    const files = new Map<string, AssetFile>();
    for (const name of Object.values(manifest)) {
      const body = await readFile(join(ASSETS_DIR, name));
      const ext = name.slice(name.lastIndexOf('.'));
      files.set(name, { answer: renderedAnswer(body, 'kept'), type: TYPES[ext] ?? 'application/octet-stream' });
    }
    const url = (key: string) => {
      const name = manifest[key];
      if (!name) throw new Error(`the assets manifest has no ${key}: run npm run build`);
      return `${ASSETS_PATH}/${name}`;
    };
    return {
      urls: {
        css: url('console.css'),
        js: url('console.js'),
        icon: url('favicon.svg'),
        statusCss: url('status-page.css'),
        statusJs: url('status-page.js'),
        docsCss: url('docs.css'),
      },
      files,
    };
  })().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
