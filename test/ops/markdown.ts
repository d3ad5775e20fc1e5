import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** The text outside fenced code blocks and inline code, where links and headings are what they seem. */
const prose = (markdown: string): string =>
  markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/`[^`\n]*`/g, (code) => (code.includes('](') ? '' : code));

/**
 * GitHub's anchor of a heading: lower case, inline markup and punctuation dropped (letters, digits,
 * spaces, `-` and `_` stay), spaces to `-`; repeated headings get `-1`, `-2`, ….
 */
export const anchorsOf = (markdown: string): Set<string> => {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text = ''] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = text
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*~]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  for (const [, id = ''] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) {
    anchors.add(id);
  }
  return anchors;
};

/** Targets of the inline links and autolinks of a page (not those shown as code). */
export const linksOf = (markdown: string): string[] => [
  ...[...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? ''),
  ...[...prose(markdown).matchAll(/<((?:https?:\/\/|mailto:)[^>]+)>/g)].map((match) => match[1] ?? ''),
];

/** Every Markdown file under `directory`, recursively, as paths relative to `root`. */
export const markdownFiles = async (root: string, directory: string): Promise<string[]> => {
  const entries = await readdir(path.join(root, directory), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const relative = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        return markdownFiles(root, relative);
      }
      return entry.name.endsWith('.md') ? [relative] : [];
    }),
  );
  return nested.flat().sort();
};

export interface DeadLink {
  readonly page: string;
  readonly link: string;
  readonly reason: string;
}

const exists = async (file: string): Promise<'file' | 'directory' | undefined> => {
  try {
    return (await stat(file)).isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
};

/**
 * The relative links of `page` (a path from `root`) that lead nowhere: a file or folder that is not in the
 * repository, or an `#anchor` that is no heading of its Markdown target. External links are not followed.
 */
export const deadLinksOf = async (root: string, page: string): Promise<DeadLink[]> => {
  const markdown = await readFile(path.join(root, page), 'utf8');
  const dead: DeadLink[] = [];
  for (const link of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
      continue;
    }
    const [target = '', anchor] = link.split('#');
    if (target.startsWith('/')) {
      // A path on the running service (/docs, /v1/presets), not in the repository.
      continue;
    }
    const file = target === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), decodeURIComponent(target));
    const kind = await exists(file);
    if (kind === undefined) {
      dead.push({ page, link, reason: 'no such file' });
      continue;
    }
    if (anchor !== undefined && anchor !== '') {
      if (kind !== 'file' || !file.endsWith('.md')) {
        dead.push({ page, link, reason: 'an anchor into something that is not a Markdown page' });
      } else if (!anchorsOf(await readFile(file, 'utf8')).has(anchor)) {
        dead.push({ page, link, reason: `no heading #${anchor}` });
      }
    }
  }
  return dead;
};
