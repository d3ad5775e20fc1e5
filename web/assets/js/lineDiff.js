// Two versions of a model's definition compared line by line: the longest common subsequence of their
// lines (definitions are at most 64 KiB, so a table of lines × lines is small), read back as kept,
// removed and added lines in order.

/** [{ kind: 'same' | 'removed' | 'added', text, before, after }] with 1-based line numbers on each side. */
export const diffLines = (beforeText, afterText) => {
  const before = beforeText.split('\n');
  const after = afterText.split('\n');
  const rows = before.length + 1;
  const columns = after.length + 1;
  // lengths[i * columns + j]: the common subsequence of before[i..] and after[j..].
  const lengths = new Uint32Array(rows * columns);
  for (let i = before.length - 1; i >= 0; i -= 1) {
    for (let j = after.length - 1; j >= 0; j -= 1) {
      lengths[i * columns + j] =
        before[i] === after[j] ? lengths[(i + 1) * columns + j + 1] + 1 : Math.max(lengths[(i + 1) * columns + j], lengths[i * columns + j + 1]);
    }
  }
  const lines = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      lines.push({ kind: 'same', text: before[i], before: i + 1, after: j + 1 });
      i += 1;
      j += 1;
    } else if (j < after.length && (i === before.length || lengths[i * columns + j + 1] >= lengths[(i + 1) * columns + j])) {
      lines.push({ kind: 'added', text: after[j], before: null, after: j + 1 });
      j += 1;
    } else {
      lines.push({ kind: 'removed', text: before[i], before: i + 1, after: null });
      i += 1;
    }
  }
  return lines;
};
