import { analyseModel } from './analyseModel.ts';
import type { ModelCheck } from './modelTypes.ts';

/**
 * Every problem of a definition (unknown input from JSON) at once, with its JSON path and, in an
 * expression, the character; and the warnings (docs/models.md, "Checking").
 */
export function checkModelDefinition(input: unknown): ModelCheck {
  const { issues, warnings, analysis } = analyseModel(input);
  return analysis === undefined ? { valid: false, issues, warnings } : { valid: true, issues: [], warnings, definition: analysis.definition };
}
