import { readFile } from 'node:fs/promises';
import test from 'ava';
import { buildOpenApiDocument } from '../../api/openapi/buildOpenApiDocument.ts';
import { PYTHON_TYPES_FILE, renderPythonTypes } from '../../scripts/python/renderPythonTypes.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

type Document = Parameters<typeof renderPythonTypes>[0];

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

test('clients/python/src/bss/types.py is exactly what `npm run python:generate` makes of the document the service serves', async (t) => {
  const served = (await (await fetch(`${app.url}/openapi.json`)).json()) as Document;
  const committed = await readFile(PYTHON_TYPES_FILE, 'utf8');
  // On failure: run `npm run python:generate` and commit clients/python/src/bss/types.py with the endpoint change.
  t.is(committed, renderPythonTypes(served), 'the Python types drifted from the OpenAPI document: run npm run python:generate');
  t.is(renderPythonTypes(buildOpenApiDocument() as Document), committed);
});

test('every schema of the document is a Python type, and every response the client returns is a TypedDict', async (t) => {
  const committed = await readFile(PYTHON_TYPES_FILE, 'utf8');
  const served = (await (await fetch(`${app.url}/openapi.json`)).json()) as Document;
  for (const name of Object.keys(served.components.schemas)) {
    t.regex(committed, new RegExp(`^(class ${name}\\(|${name} = )`, 'm'), name);
  }
  for (const name of ['Account', 'Usage', 'Preset', 'PresetFidelity', 'Run', 'RunList', 'ApiKey', 'ApiKeyCreated', 'ApiKeyRolled', 'ApiKeyRevoked', 'SimulationMetadata']) {
    t.regex(committed, new RegExp(`^class ${name}\\(.*TypedDict`, 'm'), name);
  }
});

test('a document the Python types cannot hold is refused, not rendered broken', (t) => {
  const schemas = { Odd: { type: 'object', properties: { 'not-an-identifier': { type: 'string' } }, required: [] } };
  t.throws(() => renderPythonTypes({ components: { schemas } }), { message: /not a Python identifier/ });
});
