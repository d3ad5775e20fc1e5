import ts from 'typescript';

export interface SourceComment {
  /** 1-based line of the comment's first character. */
  readonly line: number;
  readonly text: string;
}

const lineAt = (source: string, offset: number): number => source.slice(0, offset).split('\n').length;

/**
 * The comments of TypeScript or JavaScript, found by the compiler's own parser: every comment is leading
 * trivia of some token, and the tokens come from the syntax tree, so a `//` inside a string, a template or
 * a regular expression is never taken for one. JSDoc nodes are skipped (their text is the comment's).
 */
const scriptComments = (file: string, source: string): SourceComment[] => {
  const kind = /\.m?ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, kind);
  const ranges = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(source, node.pos) ?? []) {
      ranges.set(range.pos, range.end);
    }
    for (const child of node.getChildren(tree)) {
      if (child.kind < ts.SyntaxKind.FirstJSDocNode || child.kind > ts.SyntaxKind.LastJSDocNode) {
        visit(child);
      }
    }
  };
  visit(tree);
  return [...ranges].sort(([a], [b]) => a - b).map(([pos, end]) => ({ line: lineAt(source, pos), text: source.slice(pos, end) }));
};

/**
 * Comments of Lua and SQL (`--` to the end of the line, and SQL's `/* … *\/`) and of Python (`#` to the end
 * of the line, and triple-quoted strings, its docstrings), skipping quoted strings.
 */
const lineComments = (source: string, marker: '--' | '#', blocks: readonly (readonly [string, string])[]): SourceComment[] => {
  const comments: SourceComment[] = [];
  let i = 0;
  while (i < source.length) {
    const block = blocks.find(([open]) => source.startsWith(open, i));
    if (block !== undefined) {
      const end = source.indexOf(block[1], i + block[0].length);
      const stop = end === -1 ? source.length : end + block[1].length;
      comments.push({ line: lineAt(source, i), text: source.slice(i, stop) });
      i = stop;
    } else if (source.startsWith(marker, i)) {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      comments.push({ line: lineAt(source, i), text: source.slice(i, stop) });
      i = stop;
    } else if (source[i] === "'" || source[i] === '"') {
      const quote = source[i];
      i++;
      while (i < source.length && source[i] !== quote && source[i] !== '\n') {
        i += source[i] === '\\' ? 2 : 1;
      }
      i++;
    } else {
      i++;
    }
  }
  return comments;
};

/** The comments of a source file, by its extension; a Markdown file is all comment. Other files have none. */
export const commentsOf = (file: string, source: string): SourceComment[] => {
  if (/\.[cm]?[jt]s$/.test(file)) {
    return scriptComments(file, source);
  }
  if (file.endsWith('.lua')) {
    return lineComments(source, '--', []);
  }
  if (file.endsWith('.sql')) {
    return lineComments(source, '--', [['/*', '*/']]);
  }
  if (file.endsWith('.py')) {
    return lineComments(source, '#', [['"""', '"""'], ["'''", "'''"]]);
  }
  if (file.endsWith('.md')) {
    return [{ line: 1, text: source }];
  }
  return [];
};
