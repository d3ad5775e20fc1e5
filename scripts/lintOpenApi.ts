// `npm run lint:openapi`: the OpenAPI document as Redocly's `recommended` ruleset and Spectral's
// `spectral:oas` see it, every warning listed; exits 1 on an error or a warning not accepted
// (scripts/lintOpenApiDocument.ts). test/ops/openapiLint.test.ts runs the same check in `npm test`.
import { buildOpenApiDocument } from '../api/openapi/buildOpenApiDocument.ts';
import { LINTED_PUBLIC_URL, lintOpenApiDocument, unacceptedProblems } from './lintOpenApiDocument.ts';

const problems = await lintOpenApiDocument(buildOpenApiDocument({ publicUrl: LINTED_PUBLIC_URL }));
for (const problem of problems) {
  process.stdout.write(`${problem.linter} ${problem.severity} ${problem.rule} ${problem.at}: ${problem.message}\n`);
}
const refused = unacceptedProblems(problems);
process.stdout.write(`${problems.length} problems, ${refused.length} to fix\n`);
process.exitCode = refused.length === 0 ? 0 : 1;
