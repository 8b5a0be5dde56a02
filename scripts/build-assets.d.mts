// Types for scripts/build-assets.mjs (plain JavaScript: `npm run build` runs it before anything is compiled), for the
// integration tests' global setup.
export function buildAssets(): Promise<Record<string, string>>;
