import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Archive {
  /** The archive's entries as `unzip -Z1` lists them, in order. */
  readonly entries: readonly string[];
  readonly text: (entry: string) => Promise<string>;
  readonly json: <T>(entry: string) => Promise<T>;
  /** A CSV entry as rows of cells, the header first. */
  readonly csv: (entry: string) => Promise<string[][]>;
  readonly dir: string;
  readonly remove: () => Promise<void>;
}

/** Writes the bytes to a file and reads them back with the system's `unzip`: tested, listed, extracted. */
export const readArchive = async (bytes: Buffer): Promise<Archive> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'bss-dataset-'));
  const file = path.join(dir, 'archive.zip');
  await writeFile(file, bytes);
  // -t checks every entry's CRC and sizes: it exits non-zero on any error.
  await run('unzip', ['-tq', file]);
  const listed = await run('unzip', ['-Z1', file]);
  const out = path.join(dir, 'out');
  await run('unzip', ['-q', file, '-d', out]);
  const text = (entry: string): Promise<string> => readFile(path.join(out, entry), 'utf8');
  return {
    entries: listed.stdout.split('\n').filter((line) => line !== ''),
    text,
    json: async <T>(entry: string) => JSON.parse(await text(entry)) as T,
    csv: async (entry) =>
      (await text(entry))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split(',')),
    dir: out,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
};

/** The entries under a folder of the extracted archive. */
export const entriesUnder = async (archive: Archive, folder: string): Promise<string[]> => (await readdir(path.join(archive.dir, folder))).sort();
