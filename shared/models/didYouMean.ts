/** Edit distance with adjacent transpositions counted as one edit ('Trail' is one edit from 'Trial'). */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known name closest to a misspelt one (a different case counts as one edit), or undefined when none
 * is close: at most a third of the name's letters (at least one, never all) differ.
 */
function suggestName(name: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    if (candidate === name) continue;
    const d = candidate.toLowerCase() === name.toLowerCase() ? 0.5 : distance(name, candidate, limit);
    // A suggestion keeps at least one letter of the name ('Z' suggests nothing, not every one-letter name).
    if (d < bestDistance && d < name.length) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean 'x'?)`, or nothing. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const suggestion = suggestName(name, known);
  return suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`;
}
