/** from state -> (to state -> probability); terminal states have no row. */
export type TransitionRows = Readonly<Record<string, Readonly<Record<string, number>>>>;

/**
 * A fixed transition matrix over state indices, sampled by inversion of each row's cumulative sums.
 * Built at module load and checked against the preset's published transitions, so a matrix can never use
 * an edge the catalog does not list.
 */
export class MarkovChain {
  private readonly cumulative: Float64Array[];
  private readonly targets: Int32Array[];

  constructor(
    states: readonly string[],
    allowed: Readonly<Record<string, readonly string[]>>,
    rows: TransitionRows,
  ) {
    this.cumulative = [];
    this.targets = [];
    for (const from of states) {
      const row = rows[from] ?? {};
      const entries = Object.entries(row).filter(([, p]) => p > 0);
      let total = 0;
      const cumulative = new Float64Array(entries.length);
      const targets = new Int32Array(entries.length);
      entries.forEach(([to, p], k) => {
        if (!(allowed[from] ?? []).includes(to)) {
          throw new Error(`transition ${from} -> ${to} is not published`);
        }
        total += p;
        cumulative[k] = total;
        targets[k] = states.indexOf(to);
      });
      if (entries.length > 0 && Math.abs(total - 1) > 1e-9) {
        throw new Error(`transitions from ${from} sum to ${total}, not 1`);
      }
      // Absorb floating-point dust so a uniform draw just below 1 always lands on the last target.
      if (entries.length > 0) cumulative[entries.length - 1] = 2;
      this.cumulative.push(cumulative);
      this.targets.push(targets);
    }
  }

  /** Next state index from `from`, given a uniform draw u in [0, 1). */
  next(from: number, u: number): number {
    const cumulative = this.cumulative[from]!;
    const targets = this.targets[from]!;
    let k = 0;
    while (u >= cumulative[k]!) k++;
    return targets[k]!;
  }
}
