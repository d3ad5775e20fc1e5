import { configSchema } from '../shared/config.ts';

// Prints the README's configuration table from the schema (`npx node scripts/configTable.ts`);
// test/spine/config.test.ts fails when the README drifts from it.
const rows = Object.entries(configSchema.shape).map(([name, schema]) => `| \`${name}\` | ${schema.description ?? ''} |`);
process.stdout.write(['| Variable | Meaning |', '|---|---|', ...rows].join('\n') + '\n');
