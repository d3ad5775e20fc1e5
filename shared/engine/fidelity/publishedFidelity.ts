import type { PresetName } from '../presetTypes.ts';
import type { FidelityReport } from './measureFidelity.ts';
import reports1 from './reports/1.0.0.json' with { type: 'json' };
import reports2 from './reports/2.0.0.json' with { type: 'json' };
import reports3 from './reports/3.0.0.json' with { type: 'json' };
import reports4 from './reports/4.0.0.json' with { type: 'json' };

// Each engine version's reports, measured once at build time by `npm run fidelity -- --write` and
// committed: the facts of a released engine never change, since its output never does, and
// test/engine/fidelity.test.ts proves the file equals a fresh measurement. Serving them costs the API
// nothing per request and never generates the 1.7 million sample records in its event loop.
// Engine 1's report is what it measures: it predates the facts, so some do not hold (engine 2 made them hold).
const PUBLISHED: Readonly<Record<string, readonly FidelityReport[]>> = {
  '4.0.0': reports4 as FidelityReport[],
  '3.0.0': reports3 as FidelityReport[],
  '2.0.0': reports2 as FidelityReport[],
  '1.0.0': reports1 as FidelityReport[],
};

/** The committed fidelity report of a preset on an engine version, if that version has one. */
export function publishedFidelity(preset: PresetName, serviceVersion: string): FidelityReport | undefined {
  return PUBLISHED[serviceVersion]?.find((report) => report.preset === preset);
}
