/** The bounds of a definition (docs/models.md#the-definition). */
export const MODEL_LIMITS = {
  maxDefinitionBytes: 64 * 1024,
  maxDescription: 500,
  maxStates: 64,
  maxProfiles: 16,
  maxParams: 64,
  maxVariables: 64,
  minFields: 1,
  maxFields: 64,
  maxEvents: 16,
  maxSteps: 100_000,
  maxDecimals: 12,
  maxExpressionChars: 1000,
} as const;

/** Names of the model, profiles, params, variables, fields and event types. */
export const MODEL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

/** State names (they may start with a capital). */
export const STATE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/** Whether a string is a well-formed model name (callers also refuse preset names and aliases). */
export function isModelName(name: string): boolean {
  return MODEL_NAME_PATTERN.test(name);
}
