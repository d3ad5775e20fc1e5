import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** One file as served: its bytes, and precompressed variants when compression pays. */
export interface WebAsset {
  readonly type: string;
  readonly etag: string;
  readonly identity: Buffer;
  readonly br: Buffer | undefined;
  readonly gzip: Buffer | undefined;
}

export interface WebAssets {
  /** Digest of every asset; part of asset URLs so they can be cached forever. */
  readonly version: string;
  /** By URL path below `/assets/<version>/`, e.g. `js/account.js`. */
  readonly assets: ReadonlyMap<string, WebAsset>;
  /** By page name: `index`, `account`. */
  readonly pages: ReadonlyMap<string, WebAsset>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.txt', '.json']);

const WEB_ROOT = fileURLToPath(new URL('../../../web/', import.meta.url));
// The model gallery (docs/models/*.json) is served to the console's Models page as it is in the
// repository, with an index of names and descriptions: one copy of each definition, tested where it lies.
const GALLERY_ROOT = fileURLToPath(new URL('../../../docs/models/', import.meta.url));

// uPlot is served from the installed package rather than copied, so an upgrade cannot leave a stale copy.
const require = createRequire(import.meta.url);
const VENDOR_FILES: Readonly<Record<string, string>> = {
  'vendor/uPlot.esm.js': require.resolve('uplot/dist/uPlot.esm.js'),
  'vendor/uPlot.min.css': require.resolve('uplot/dist/uPlot.min.css'),
};

const loaded = new Map<string, WebAssets>();

/**
 * Reads the console's files once per process, at startup: the set is small (tens of kilobytes
 * compressed), and serving from memory means a request path is only ever a key into a map, never a path
 * on disk. Memoized, so tests that build many apps in one process read and compress once.
 */
export const loadWebAssets = (root: string = WEB_ROOT): WebAssets => {
  const cached = loaded.get(root);
  if (cached !== undefined) {
    return cached;
  }
  const assets = readWebAssets(root);
  loaded.set(root, assets);
  return assets;
};

const readWebAssets = (root: string): WebAssets => {
  const sources = new Map<string, string>();
  for (const file of listFiles(path.join(root, 'assets'))) {
    sources.set(toUrlPath(path.relative(path.join(root, 'assets'), file)), file);
  }
  for (const [urlPath, file] of Object.entries(VENDOR_FILES)) {
    sources.set(urlPath, file);
  }
  const gallery = root === WEB_ROOT ? readdirSync(GALLERY_ROOT).filter((file) => file.endsWith('.json')).sort() : [];
  for (const file of gallery) {
    sources.set(`gallery/${file}`, path.join(GALLERY_ROOT, file));
  }

  const contents = new Map<string, Buffer>();
  const digest = createHash('sha256');
  for (const urlPath of [...sources.keys()].sort()) {
    const extension = path.extname(urlPath);
    if (CONTENT_TYPES[extension] === undefined) {
      continue;
    }
    const bytes = readFileSync(sources.get(urlPath) as string);
    contents.set(urlPath, bytes);
    digest.update(`${urlPath}\0${bytes.length}\0`).update(bytes);
  }
  const index = gallery.map((file) => ({
    name: path.basename(file, '.json'),
    description: (JSON.parse((contents.get(`gallery/${file}`) as Buffer).toString('utf8')) as { description: string }).description,
  }));
  const indexBytes = Buffer.from(JSON.stringify(index), 'utf8');
  contents.set('gallery/index.json', indexBytes);
  digest.update(`gallery/index.json\0${indexBytes.length}\0`).update(indexBytes);
  const version = digest.digest('hex').slice(0, 12);

  const assets = new Map<string, WebAsset>();
  for (const [urlPath, bytes] of contents) {
    assets.set(urlPath, toAsset(path.extname(urlPath), bytes));
  }
  const pages = new Map<string, WebAsset>();
  for (const name of ['index', 'account']) {
    const html = readFileSync(path.join(root, 'pages', `${name}.html`), 'utf8').replaceAll('%ASSETS%', `/assets/${version}`);
    pages.set(name, toAsset('.html', Buffer.from(html, 'utf8')));
  }
  return { version, assets, pages };
};

const listFiles = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => path.join(entry.parentPath, entry.name));

const toUrlPath = (relative: string): string => relative.split(path.sep).join('/');

const toAsset = (extension: string, identity: Buffer): WebAsset => {
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
  const compressible = COMPRESSIBLE.has(extension) && identity.length > 512;
  return {
    type: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    etag: hash,
    identity,
    // Quality 9, not 11: on uPlot, 9 % larger but ten times faster (40 ms instead of 450 ms at start-up).
    br: compressible ? brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }) : undefined,
    gzip: compressible ? gzipSync(identity, { level: 9 }) : undefined,
  };
};
