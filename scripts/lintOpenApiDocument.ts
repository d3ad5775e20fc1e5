import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

export interface LintProblem {
  readonly linter: 'redocly' | 'spectral';
  readonly severity: 'error' | 'warning';
  readonly rule: string;
  readonly message: string;
  /** Where in the document, as a JSON pointer. */
  readonly at: string;
}

/**
 * Warnings the document keeps on purpose, by linter and rule; any other warning, and every error, is a
 * problem to fix (docs/development.md).
 */
const ACCEPTED_WARNINGS: ReadonlyArray<{ linter: LintProblem['linter']; rule: string; why: string }> = [
  { linter: 'redocly', rule: 'info-license', why: 'the service is not published under a licence' },
  { linter: 'spectral', rule: 'info-contact', why: 'who to contact depends on the deployment, not the document' },
  {
    linter: 'redocly',
    rule: 'operation-4xx-response',
    why: "the probes, presets, plans and sign-in providers refuse nothing a client sends them: only the HTTP parser's own refusals, common to every operation",
  },
  { linter: 'redocly', rule: 'operation-2xx-response', why: 'the sign-in steps answer with redirects (302) only' },
];

/** The problems that are not accepted warnings: what must be fixed. */
export const unacceptedProblems = (problems: readonly LintProblem[]): LintProblem[] =>
  problems.filter((problem) => problem.severity === 'error' || !ACCEPTED_WARNINGS.some((accepted) => accepted.linter === problem.linter && accepted.rule === problem.rule));

/** A server URL for the linted document: the real one is each deployment's PUBLIC_URL. */
export const LINTED_PUBLIC_URL = 'https://simulations.example.org';

// Spectral's DiagnosticSeverity (an enum of @stoplight/types): 0 error, 1 warning, 2 information, 3 hint.
const SPECTRAL_ERROR = 0;
const SPECTRAL_WARNING = 1;

/**
 * The OpenAPI document's problems as two third-party linters report them: Redocly's `recommended`
 * ruleset and Spectral's `spectral:oas`, both run in-process on the document's JSON text (nothing is
 * fetched). Information and hints are left out; errors and warnings are all kept.
 */
export const lintOpenApiDocument = async (document: unknown): Promise<LintProblem[]> => {
  const text = JSON.stringify(document, null, 2);
  const config = await createConfig({ extends: ['recommended'] });
  const redocly = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
  const spectral = new Spectral();
  // As `extends: spectral:oas` in a .spectral.yaml: the ruleset's recommended rules.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  const diagnostics = await spectral.run(new Document(text, Parsers.Json, 'openapi.json'));
  return [
    ...redocly
      .filter((problem) => problem.severity === 'error' || problem.severity === 'warn')
      .map((problem) => ({
        linter: 'redocly' as const,
        severity: problem.severity === 'error' ? ('error' as const) : ('warning' as const),
        rule: problem.ruleId,
        message: problem.message,
        at: problem.location[0]?.pointer ?? '',
      })),
    ...diagnostics
      .filter((diagnostic) => Number(diagnostic.severity) <= SPECTRAL_WARNING)
      .map((diagnostic) => ({
        linter: 'spectral' as const,
        severity: Number(diagnostic.severity) === SPECTRAL_ERROR ? ('error' as const) : ('warning' as const),
        rule: String(diagnostic.code),
        message: diagnostic.message,
        at: `#/${diagnostic.path.map(String).join('/')}`,
      })),
  ];
};
