import { fact, type FidelityFact, type PresetFacts, quote } from './fidelityFact.ts';
import { correlation, mean, skewness } from './statistics.ts';

// Response times are log-normal (van der Linden 2006); harder items are answered correctly less often
// (item response theory); cognitive load tracks the load regime (Sweller 1988).
export const educationFacts: PresetFacts = (samples) => {
  const facts: FidelityFact[] = [];
  for (const { profile, columns } of samples) {
    const times = columns.column('response_time_ms');
    const skew = skewness(times);
    const logSkew = skewness(times.map(Math.log));
    const difficultyEffect = correlation(columns.column('difficulty'), columns.column('correct'));
    const state = columns.column('state');
    const load = columns.column('cognitive_load');
    const loadIn = (name: string): number => mean(load.filter((_, i) => state[i] === columns.indexOf('state', name)));
    const overload = loadIn('Overload');
    const optimal = loadIn('Optimal');
    const underload = loadIn('Underload');
    facts.push(
      fact('response_time_right_skewed', 'Skewness of response_time_ms', profile, '> 1', skew, skew > 1),
      fact('log_response_time_symmetric', 'Absolute skewness of log(response_time_ms)', profile, '< 0.5', Math.abs(logSkew), Math.abs(logSkew) < 0.5),
      fact(
        'harder_items_less_correct',
        'Correlation of difficulty with correct',
        profile,
        '< 0',
        difficultyEffect,
        difficultyEffect < 0,
      ),
      fact(
        'cognitive_load_highest_in_overload',
        'Mean cognitive_load in Overload, against the other states (Optimal, Underload)',
        profile,
        `> ${quote(Math.max(optimal, underload))}`,
        overload,
        overload > optimal && overload > underload,
      ),
      fact(
        'cognitive_load_lowest_in_underload',
        'Mean cognitive_load in Underload, against the other states (Optimal, Overload)',
        profile,
        `< ${quote(Math.min(optimal, overload))}`,
        underload,
        underload < optimal && underload < overload,
      ),
    );
  }
  return facts;
};
