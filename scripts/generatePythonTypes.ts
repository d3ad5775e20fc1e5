import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../api/openapi/buildOpenApiDocument.ts';
import { PYTHON_TYPES_FILE, renderPythonTypes } from './python/renderPythonTypes.ts';

// `npm run python:generate`: rewrites the Python client's TypedDicts (clients/python/src/bss/types.py)
// from the OpenAPI document, as `npm run sdk:generate` does for the TypeScript SDK. Run both after
// changing an endpoint, and commit the results with the change.
await writeFile(PYTHON_TYPES_FILE, renderPythonTypes(buildOpenApiDocument() as Parameters<typeof renderPythonTypes>[0]));
process.stdout.write(`wrote ${fileURLToPath(PYTHON_TYPES_FILE)}\n`);
