import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ENGINE_DIR = fileURLToPath(new URL('../../shared/engine/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('the engine is pure: no I/O, clock, environment or Math.random in its sources', (t) => {
  const files = sources(ENGINE_DIR);
  t.true(files.length > 10);
  const forbidden = [
    /Math\.random/,
    /\bDate\b/,
    /performance\./,
    /process\./,
    /from 'node:/,
    /\brequire\(/,
    /\bimport\(/,
    /setTimeout|setInterval|setImmediate/,
    /crypto\./,
  ];
  for (const file of files) {
    // Comments may name what the code must not use; only code counts.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    for (const pattern of forbidden) t.false(pattern.test(text), `${file} matches ${pattern}`);
  }
});
