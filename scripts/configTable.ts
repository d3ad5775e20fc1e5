import { configSchema } from '../shared/config.ts';

// Prints the configuration table of docs/configuration.md from the schema (`npx node scripts/configTable.ts`);
// test/spine/config.test.ts fails when the page drifts from it.
const rows = Object.entries(configSchema.shape).map(([name, schema]) => `| \`${name}\` | ${schema.description ?? ''} |`);
process.stdout.write(['| Variable | Meaning |', '|---|---|', ...rows].join('\n') + '\n');
