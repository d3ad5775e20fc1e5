import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generateSdkTypes, SDK_TYPES_FILE } from '../sdk/generateSdkTypes.ts';

// `npm run sdk:generate`: rewrites sdk/openapi.ts from the route schemas. Run it after changing an
// endpoint, and commit the result with the change.
await writeFile(SDK_TYPES_FILE, await generateSdkTypes());
process.stdout.write(`wrote ${fileURLToPath(SDK_TYPES_FILE)}\n`);
