import { fact, type PresetFacts } from './fidelityFact.ts';
import { mean } from './statistics.ts';

/** Engine 3's calibrated healthcare fact: chronic patients take about half their doses (WHO 2003). */
export const healthcareCalibratedFacts: PresetFacts = (samples) =>
  samples
    .filter(({ profile }) => profile === 'chronic_condition')
    .map(({ profile, columns }) => {
      const share = mean(columns.column('medication_taken'));
      return fact('calibrated_chronic_adherence', 'Share of records with medication_taken = 1', profile, '0.40–0.70', share, share >= 0.4 && share <= 0.7);
    });
