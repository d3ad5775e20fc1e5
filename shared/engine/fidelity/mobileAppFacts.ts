import { fact, type FidelityFact, type PresetFacts, quote } from './fidelityFact.ts';
import { mean, median } from './statistics.ts';

const EARLY_INTERACTIONS = 30;
// Early churn is compared along this order: each profile churns early more often than the next.
const CHURN_ORDER = ['churn_risk', 'casual_user', 'power_user'];

/** Share of sequences that reach Churned within their first EARLY_INTERACTIONS interactions. */
function earlyChurnShare(sequence: Float64Array, state: Float64Array, churned: number): number {
  let sequences = 0;
  let early = 0;
  let start = 0;
  for (let i = 0; i <= sequence.length; i++) {
    if (i < sequence.length && sequence[i] === sequence[start]) continue;
    let churnedEarly = false;
    for (let k = start; k < i && k < start + EARLY_INTERACTIONS; k++) if (state[k] === churned) churnedEarly = true;
    // The sample's last sequence may be cut short: count it only when its first interactions are all there.
    if (churnedEarly || i < sequence.length || i - start >= EARLY_INTERACTIONS) {
      sequences++;
      if (churnedEarly) early++;
    }
    start = i;
  }
  return early / sequences;
}

// App analytics: session lengths are heavy-tailed and revenue is zero-inflated with a few heavy payers.
export const mobileAppFacts: PresetFacts = (samples) => {
  const facts: FidelityFact[] = [];
  const earlyChurn = new Map<string, number>();
  for (const { profile, columns } of samples) {
    const sessions = columns.column('session_duration_s').filter((x) => x > 0);
    const sessionRatio = mean(sessions) / median(sessions);
    const revenue = columns.column('revenue');
    const payments = revenue.filter((x) => x > 0);
    const zeroShare = 1 - payments.length / revenue.length;
    const revenueRatio = mean(payments) / median(payments);
    earlyChurn.set(
      profile,
      earlyChurnShare(columns.column('sequence_id'), columns.column('state'), columns.indexOf('state', 'Churned')),
    );
    facts.push(
      fact(
        'session_duration_heavy_tailed',
        'Mean of non-zero session_duration_s as a multiple of their median',
        profile,
        '≥ 1.5',
        sessionRatio,
        sessionRatio >= 1.5,
      ),
      fact('revenue_zero_inflated', 'Share of records with zero revenue', profile, '≥ 0.8', zeroShare, zeroShare >= 0.8),
      fact(
        'revenue_heavy_tailed',
        'Mean of non-zero revenue as a multiple of its median',
        profile,
        '≥ 1.5',
        revenueRatio,
        revenueRatio >= 1.5,
      ),
    );
  }
  const description = `Share of sequences reaching Churned within their first ${EARLY_INTERACTIONS} interactions`;
  CHURN_ORDER.forEach((profile, k) => {
    const share = earlyChurn.get(profile);
    if (share === undefined) return;
    const conditions: string[] = [];
    let holds = true;
    const above = CHURN_ORDER[k + 1];
    const below = CHURN_ORDER[k - 1];
    if (below !== undefined) {
      const other = earlyChurn.get(below)!;
      conditions.push(`< ${quote(other)} (${below})`);
      holds &&= share < other;
    }
    if (above !== undefined) {
      const other = earlyChurn.get(above)!;
      conditions.push(`> ${quote(other)} (${above})`);
      holds &&= share > other;
    }
    facts.push(fact('early_churn_ordered', description, profile, conditions.join(' and '), share, holds));
  });
  return facts;
};
