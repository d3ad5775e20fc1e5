// npm run fidelity [-- --engine-version V] [-- --write]: measures every preset's stylized facts
// (docs/decisions.md#fidelity) on the fixed-seed samples of an engine version (the newest by default) and
// prints them as a table; --write stores them as the report GET /v1/presets/{preset}/fidelity serves. Exit code
// 1 when a fact does not hold.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PRESET_NAMES, resolveEngineVersion } from '../shared/engine/index.ts';
import { measureFidelity } from '../shared/engine/fidelity/measureFidelity.ts';

const { values } = parseArgs({ options: { 'engine-version': { type: 'string' }, write: { type: 'boolean', default: false } } });
const serviceVersion = resolveEngineVersion(values['engine-version']);
if (serviceVersion === undefined) {
  console.error(`unknown engine version: ${values['engine-version']}`);
  process.exit(2);
}

// Where shared/engine/fidelity/publishedFidelity.ts imports each version's report from.
const fidelityReportUrl = (version: string): URL => new URL(`../shared/engine/fidelity/reports/${version}.json`, import.meta.url);

const started = performance.now();
const reports = PRESET_NAMES.map((preset) => measureFidelity(preset, serviceVersion));
const rows = reports.flatMap((report) =>
  report.facts.map((f) => [report.preset, f.profile, f.name, String(f.value), f.target, f.holds ? 'yes' : 'NO']),
);
const header = ['preset', 'profile', 'fact', 'value', 'target', 'holds'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
const sample = reports[0]!.sample[0]!;
console.log(`engine ${serviceVersion}: ${sample.num_interactions.toLocaleString('en-US')} interactions per profile, seed ${sample.seed}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
const failing = reports.flatMap((r) => r.facts).filter((f) => !f.holds).length;
console.log(`${failing === 0 ? 'PASS' : 'FAIL'}: ${rows.length - failing}/${rows.length} facts hold (${Math.round(performance.now() - started)} ms)`);
if (values.write) {
  writeFileSync(fidelityReportUrl(serviceVersion), `${JSON.stringify(reports, null, 2)}\n`);
  console.log(`wrote ${fidelityReportUrl(serviceVersion).pathname}`);
}
process.exitCode = failing === 0 ? 0 : 1;
