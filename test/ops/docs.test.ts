import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { configSchema } from '../../shared/config.ts';
import { anchorsOf, deadLinksOf, linksOf, markdownFiles } from './markdown.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): Promise<string> => readFile(path.join(ROOT, file), 'utf8');

/** The user docs: the README and every page under docs/, whoever wrote it. */
const userDocs = async (): Promise<string[]> => ['README.md', ...(await markdownFiles(ROOT, 'docs'))];

/** Every (status, code) the service can answer with, read from the error factories themselves. */
const errorCodes = async (): Promise<Array<{ status: number; code: string }>> => {
  const source = await read('shared/errors/errors.ts');
  const found = [...source.matchAll(/(?:new AppError|super)\(\s*(\d{3}),\s*'([a-z_]+)'/g)].map(([, status, code]) => ({ status: Number(status), code: code ?? '' }));
  const unique = new Map(found.map((entry) => [`${entry.status} ${entry.code}`, entry]));
  return [...unique.values()];
};

test('the README is a front door: under 12 KB, with the two commands, a quick start per client and links into docs/', async (t) => {
  const readme = await read('README.md');
  t.true(Buffer.byteLength(readme) < 12 * 1024, `README.md is ${Buffer.byteLength(readme)} bytes`);
  t.regex(readme, /^npm ci && npm start\b/m);
  t.regex(readme, /^npm test\b/m);
  for (const heading of ['curl', 'CLI', 'TypeScript', 'Python']) {
    t.true(anchorsOf(readme).has(heading.toLowerCase()), `a quick start for ${heading}`);
  }
  // The Python quick start, exactly as the Python client promises it.
  t.regex(readme, /^pip install \.\/clients\/python$/m);
  t.regex(readme, /^import bss\n(?:client = bss\.Client\(\)\n|.*; client = bss\.Client\(\); )df = client\.simulate\("finance", 1000, seed=42\)\.to_pandas\(\)$/m);
  t.true(readme.includes('BSS_API_KEY'));
  t.true(linksOf(readme).includes('docs/README.md'));
});

test("the README explains the EBADENGINE warnings of npm ci on a machine whose Node is older than the pinned one", async (t) => {
  const readme = await read('README.md');
  const manifest = JSON.parse(await read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
  // The Node the service runs on is the pinned devDependency, the one `engines` names.
  const pinned = manifest.devDependencies.node ?? '';
  t.regex(manifest.engines.node, new RegExp(`^>=${pinned.split('.')[0] ?? ''}\\b`));
  t.regex(readme, /Node\.js \d+ is pinned as a dependency/);
  t.regex(readme, /`npm warn EBADENGINE`/);
});

test('no dead links: every relative link of the README and docs/ reaches a file, and every #anchor a heading', async (t) => {
  const dead = (await Promise.all((await userDocs()).map((page) => deadLinksOf(ROOT, page)))).flat();
  t.deepEqual(dead, []);
});

test('every page under docs/ can be reached from the docs index', async (t) => {
  const pages = await markdownFiles(ROOT, 'docs');
  const reached = new Set<string>();
  const queue = ['docs/README.md'];
  while (queue.length > 0) {
    const page = queue.shift() ?? '';
    if (reached.has(page)) {
      continue;
    }
    reached.add(page);
    for (const link of linksOf(await read(page))) {
      const target = link.split('#')[0] ?? '';
      if (target.endsWith('.md') && !/^[a-z]+:/i.test(target)) {
        const resolved = path.relative(ROOT, path.resolve(ROOT, path.dirname(page), target));
        if (resolved.startsWith('docs/') && pages.includes(resolved)) {
          queue.push(resolved);
        }
      }
    }
  }
  t.deepEqual(pages.filter((page) => !reached.has(page)), []);
});

test('every error code the service answers with is documented with its status in docs/errors.md', async (t) => {
  const page = await read('docs/errors.md');
  const codes = await errorCodes();
  // The factories are the list: a code added to shared/errors/errors.ts fails here until it has its row.
  t.true(codes.length >= 30);
  const missing = codes.filter(({ status, code }) => !new RegExp(`^\\| ${status} \\| \`${code}\` \\| \\S`, 'm').test(page));
  t.deepEqual(missing, []);
});

test('every configuration variable is documented in docs/configuration.md', async (t) => {
  const page = await read('docs/configuration.md');
  const missing = Object.keys(configSchema.shape).filter((name) => !page.includes(`| \`${name}\` |`));
  t.deepEqual(missing, []);
});

test('user docs carry no commit hashes, issue numbers or references to internal documents', async (t) => {
  const offending: string[] = [];
  for (const page of await userDocs()) {
    const text = await read(page);
    const checks: Array<[RegExp, string]> = [
      // A run of 7–40 hex digits with both digits and letters, not part of a UUID or a longer word.
      [/(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])/g, 'a commit hash'],
      [/\bissues? #?\d+|(?<![\w&])#\d+\b|\bPR #?\d+/gi, 'an issue number'],
      [/\bDECISIONS\b/g, 'the internal decisions file'],
      [/\bSTYLE §\d+/g, 'the internal style guide'],
      [/\bendpoints? \d+/gi, 'an endpoint number of the specification'],
    ];
    for (const [pattern, what] of checks) {
      for (const match of text.matchAll(pattern)) {
        offending.push(`${page}: ${what}: ${match[0]}`);
      }
    }
  }
  t.deepEqual(offending, []);
});

test('authentication_required is documented as 401, never as another status', async (t) => {
  for (const page of await userDocs()) {
    const text = await read(page);
    t.notRegex(text, /authentication_required`? \((?!401)\d{3}\)/, page);
    t.notRegex(text, /\| (?!401)\d{3} \| `authentication_required`/, page);
  }
});
