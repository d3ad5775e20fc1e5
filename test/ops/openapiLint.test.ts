import test from 'ava';
import { buildOpenApiDocument } from '../../api/openapi/buildOpenApiDocument.ts';
import { LINTED_PUBLIC_URL, lintOpenApiDocument, unacceptedProblems } from '../../scripts/lintOpenApiDocument.ts';

// docs/decisions.md#the-api-description: Redocly's `recommended` ruleset and
// Spectral's `spectral:oas` report no error, and no warning but those the document keeps on purpose.
const document = buildOpenApiDocument({ publicUrl: LINTED_PUBLIC_URL }) as Record<string, any>;

test("the OpenAPI document passes Redocly's recommended ruleset and Spectral's spectral:oas", async (t) => {
  const problems = await lintOpenApiDocument(document);
  t.deepEqual(unacceptedProblems(problems), []);
});

test('public operations declare security: [] and every operation and tag has a description', (t) => {
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(item)) {
      t.true(Array.isArray(operation.security), `${method} ${path} declares its security`);
      t.true(typeof operation.description === 'string' && operation.description !== '', `${method} ${path} has a description`);
    }
  }
  t.deepEqual(document.paths['/health'].get.security, []);
  t.deepEqual(document.paths['/v1/downloads/{token}'].get.security, []);
  for (const tag of document.tags as { name: string; description?: string }[]) {
    t.truthy(tag.description, tag.name);
  }
});
