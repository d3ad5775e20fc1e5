import { readFile } from 'node:fs/promises';
import test from 'ava';
import { generateSdkTypes, SDK_TYPES_FILE } from '../../sdk/generateSdkTypes.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

test('sdk/openapi.ts is exactly what `npm run sdk:generate` makes of the document the service serves', async (t) => {
  const served = (await (await fetch(`${app.url}/openapi.json`)).json()) as object;
  const committed = await readFile(SDK_TYPES_FILE, 'utf8');
  // On failure: run `npm run sdk:generate` and commit sdk/openapi.ts with the endpoint change.
  t.is(committed, await generateSdkTypes(served), 'the SDK types drifted from the OpenAPI document: run npm run sdk:generate');
  t.is(await generateSdkTypes(), committed);
});

test('the generated types name every documented operation', async (t) => {
  const committed = await readFile(SDK_TYPES_FILE, 'utf8');
  const served = (await (await fetch(`${app.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
  for (const [path, item] of Object.entries(served.paths)) {
    t.true(committed.includes(`    "${path}": {`), path);
    for (const operation of Object.values(item)) {
      t.true(committed.includes(`    ${operation.operationId}: {`), operation.operationId);
    }
  }
});
