import { loadConfig } from '../shared/config.ts';
import { preflight } from './preflight.ts';

const config = loadConfig();
const { problem, applied } = await preflight(config);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
process.stdout.write(applied.length === 0 ? 'No pending migrations.\n' : `Applied: ${applied.join(', ')}\n`);
