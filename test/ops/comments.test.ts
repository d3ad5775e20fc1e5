import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { commentsOf } from './commentsOf.ts';
import { anchorsOf } from './markdown.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_DIRECTORIES = ['api', 'worker', 'shared', 'cli', 'sdk', 'web', 'scripts', 'bench', 'test', 'migrations', 'clients'];
const SOURCE_FILE = /\.(?:[cm]?[jt]s|sql|lua|py|md)$/;

/** Every file of the repository (dependencies and dot-directories aside), as paths from the root. */
const repositoryFiles = async (): Promise<string[]> => {
  const files: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    for (const entry of await readdir(path.join(ROOT, directory), { withFileTypes: true })) {
      const relative = directory === '' ? entry.name : `${directory}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) {
        await walk(relative);
      } else if (entry.isFile()) {
        files.push(relative);
      }
    }
  };
  await walk('');
  return files.sort();
};

// A name as a comment writes it: not preceded by a path character (so a URL's path or a part of a longer
// path is not one) nor a glob's or template's (`*.test.ts`, `routes/<resource>/routes.ts`).
const TS_FILE = /(?<![\w$@./*<>{}-])(?:\.{1,2}\/)?[\w@-][\w@./-]*\.ts(?!\w)/g;
const DOCS_PAGE = /(?<![\w$@./*<>{}-])docs\/[\w./-]*\.md(?:#[\w-]+)?/g;

interface Checked {
  readonly file: string;
  readonly source: string;
}

/**
 * What a comment may not say: cite the decisions file that lives outside the repository (a comment cites
 * the docs page that holds its rule), name a `.ts` file that does not exist (in the repository, relative
 * to the file, as the end of a repository path, or inside a dependency), or cite a docs page or an
 * #anchor that is not there.
 */
const staleReferences = (checked: readonly Checked[], files: readonly string[], anchorsOfPage: (page: string) => Set<string> | undefined): string[] => {
  const paths = new Set(files);
  const resolves = (name: string, from: string): boolean =>
    paths.has(path.posix.normalize(path.posix.join(path.posix.dirname(from), name))) ||
    (!name.startsWith('.') && (paths.has(name) || files.some((file) => file.endsWith(`/${name}`)) || existsSync(path.join(ROOT, 'node_modules', name))));
  const problems: string[] = [];
  for (const { file, source } of checked) {
    for (const { line, text } of commentsOf(file, source)) {
      const at = (index: number): string => `${file}:${line + text.slice(0, index).split('\n').length - 1}`;
      for (const match of text.matchAll(/\bDECISIONS\b/g)) {
        problems.push(`${at(match.index)}: cites DECISIONS, which is not in the repository`);
      }
      for (const match of text.matchAll(/\bSTYLE §\d+/g)) {
        problems.push(`${at(match.index)}: cites ${match[0]}, a style guide that is not in the repository (docs/development.md#code-conventions is)`);
      }
      for (const match of text.matchAll(TS_FILE)) {
        if (!resolves(match[0], file)) {
          problems.push(`${at(match.index)}: names ${match[0]}, which does not exist`);
        }
      }
      for (const match of text.matchAll(DOCS_PAGE)) {
        const [page = '', anchor] = match[0].split('#');
        const anchors = anchorsOfPage(page);
        if (anchors === undefined) {
          problems.push(`${at(match.index)}: cites ${page}, which does not exist`);
        } else if (anchor !== undefined && !anchors.has(anchor)) {
          problems.push(`${at(match.index)}: cites ${match[0]}, a heading ${page} does not have`);
        }
      }
    }
  }
  return problems;
};

const pageAnchors = async (files: readonly string[]): Promise<(page: string) => Set<string> | undefined> => {
  const pages = new Map<string, Set<string>>();
  for (const file of files.filter((name) => name.startsWith('docs/') && name.endsWith('.md'))) {
    pages.set(file, anchorsOf(await readFile(path.join(ROOT, file), 'utf8')));
  }
  return (page) => pages.get(page);
};

test('no comment cites DECISIONS, names a .ts file that does not exist, or a docs page or heading that does not', async (t) => {
  const files = await repositoryFiles();
  const sources = files.filter((file) => SOURCE_DIRECTORIES.includes(file.split('/')[0] ?? '') && SOURCE_FILE.test(file));
  t.true(sources.length > 600, `${sources.length} source files`);
  const checked = await Promise.all(sources.map(async (file) => ({ file, source: await readFile(path.join(ROOT, file), 'utf8') })));
  t.deepEqual(staleReferences(checked, files, await pageAnchors(files)), []);
});

test('the check flags what a comment says, never a string, a URL, a glob or a dependency’s file', async (t) => {
  const files = await repositoryFiles();
  const anchors = await pageAnchors(files);
  const flagged = (file: string, source: string): string[] => staleReferences([{ file, source }], files, anchors);

  t.deepEqual(flagged('api/x.ts', '// The order of checks (DECISIONS "Order of checks").\nexport const x = 1;\n'), [
    'api/x.ts:1: cites DECISIONS, which is not in the repository',
  ]);
  t.deepEqual(flagged('api/x.ts', 'const x = 1;\n/**\n * Kept per account\n * (DECISIONS "Idempotent retries").\n */\nexport const y = x;\n'), [
    'api/x.ts:4: cites DECISIONS, which is not in the repository',
  ]);
  t.deepEqual(flagged('worker/x.ts', '// Served again from a position (STYLE §18).\nexport const x = 1;\n'), [
    'worker/x.ts:1: cites STYLE §18, a style guide that is not in the repository (docs/development.md#code-conventions is)',
  ]);
  t.deepEqual(flagged('api/x.ts', "export const x = 'DECISIONS // replyKeys.ts docs/nope.md';\nexport const y = /\\/\\/ limitScripts.ts/;\n"), []);
  t.deepEqual(flagged('shared/jobs/x.ts', '/** The reply stream (shared/jobs/replyKeys.ts). */\nexport const x = 1;\n'), [
    'shared/jobs/x.ts:1: names shared/jobs/replyKeys.ts, which does not exist',
  ]);
  t.deepEqual(flagged('api/limits/lua/x.lua', "-- Returns LIMIT_OUTCOMES (limitScripts.ts).\nreturn '-- nope.ts'\n"), [
    'api/limits/lua/x.lua:1: names limitScripts.ts, which does not exist',
  ]);
  t.deepEqual(flagged('migrations/9999_x.sql', "-- Runs (DECISIONS \"History\").\nSELECT '-- DECISIONS';\n"), [
    'migrations/9999_x.sql:1: cites DECISIONS, which is not in the repository',
  ]);
  t.deepEqual(flagged('clients/python/x.py', 'def f():\n    """See DECISIONS."""\n    return "# DECISIONS"  # see docs/api.md#nope\n'), [
    'clients/python/x.py:2: cites DECISIONS, which is not in the repository',
    'clients/python/x.py:3: cites docs/api.md#nope, a heading docs/api.md does not have',
  ]);
  // Names that exist: by path from the root, relative to the file, as the end of a path, in a dependency.
  const existing = [
    '// api/limits/createLimitScripts.ts, ./admitSimulation.ts, ../simulations/streamRun.ts',
    '// db/queries/streams.ts and presetTypes.ts, typescript/lib/lib.es5.d.ts',
    // Patterns and URLs are not file names.
    '// routes/<resource>/routes.ts, every *.test.ts, https://github.com/example/repo/blob/main/src/gone.ts',
    '// docs/decisions.md#fidelity, docs/api.md, docs/presets/*.md',
  ];
  t.deepEqual(flagged('api/limits/x.ts', `${existing.join('\n')}\nexport const x = 1;\n`), []);
  t.deepEqual(flagged('api/limits/x.ts', '// ./gone.ts and docs/gone.md and docs/api.md#gone\nexport const x = 1;\n'), [
    'api/limits/x.ts:1: names ./gone.ts, which does not exist',
    'api/limits/x.ts:1: cites docs/gone.md, which does not exist',
    'api/limits/x.ts:1: cites docs/api.md#gone, a heading docs/api.md does not have',
  ]);
});
