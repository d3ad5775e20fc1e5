import { z } from 'zod';
import { modelExamples } from './modelExamples.ts';

// The definition as the OpenAPI document and the clients' types describe it (docs/models.md#the-definition). A
// body is checked by the language's own checker (shared/models), which reports every problem at once with its
// path: this schema describes, it does not judge.

const NAME = '^[a-z][a-z0-9_]{0,39}$';
const STATE = '^[A-Za-z][A-Za-z0-9_]{0,39}$';

const expression = z
  .union([z.number(), z.string().max(1000)])
  .describe('A JSON number, or a string holding an expression of at most 1,000 characters (docs/models.md#expressions).');

const variableSchema = z
  .strictObject({
    name: z.string().regex(new RegExp(NAME)),
    initial: expression.describe('Its value at step 1.'),
    next: expression.describe('Its value at each later step, from the previous values (docs/models.md#semantics-of-one-sequence).'),
  })
  .describe('A number carried from step to step.');

const fieldSchema = z
  .strictObject({
    name: z.string().regex(new RegExp(NAME)),
    type: z.enum(['integer', 'number', 'string']),
    value: expression.describe("The field's value; fields listed earlier in the record may be named."),
    decimals: z.int().min(0).max(12).optional().describe('Rounds a number field to this many decimals.'),
    description: z.string().optional(),
  })
  .describe('A record field, written after `sequence_id`, `interaction_id` and `state`.');

const eventSchema = z
  .strictObject({
    type: z.string().regex(new RegExp(NAME)),
    description: z.string(),
    effect: z.string().optional().describe('A sentence shown in the catalog.'),
    set: z.record(z.string(), expression).optional().describe("Inside the event's window each named param takes the expression's value."),
    enter: z.string().regex(new RegExp(STATE)).optional().describe("At the window's first step the state is this one."),
  })
  .describe("One of the model's scenario event types.");

export const modelDefinitionSchema = z
  .strictObject({
    description: z.string().min(1).max(500).describe('What the model simulates.'),
    states: z.array(z.string().regex(new RegExp(STATE))).min(1).max(64).describe('The states a record can carry, distinct.'),
    initial: z
      .union([z.string(), z.record(z.string(), expression)])
      .describe('The state of step 1, or `{state: weight}` (weights ≥ 0, normalised).'),
    terminal: z.array(z.string()).optional().describe('Entering one ends the sequence (its record is written).'),
    max_steps: z.int().min(1).max(100_000).describe('A sequence ends after this many records if no terminal state ended it.'),
    profiles: z
      .record(z.string(), z.record(z.string(), z.number()))
      .describe('1–16 named parameter sets, every one with the same 0–64 params.'),
    default_profile: z.string().optional().describe('Default: the first profile listed.'),
    variables: z.array(variableSchema).max(64).optional(),
    transitions: z
      .record(z.string(), z.record(z.string(), expression))
      .describe('Per state, the probability of moving to each listed state; the remainder stays.'),
    fields: z.array(fieldSchema).min(1).max(64),
    events: z.array(eventSchema).max(16).optional(),
    clock: z
      .strictObject({ step_seconds: expression, start_offset_seconds: expression })
      .optional()
      .describe("The model's clock under engine 4: the gap before each record after the first, and the first record's offset."),
  })
  .describe('A model definition (docs/models.md): at most 64 KiB.')
  .meta({ examples: [modelExamples.definition] });

const modelIssueSchema = z
  .strictObject({
    path: z.string().describe('A JSON path into the definition, like `transitions.Trial.Active` or `fields[2].value`.'),
    message: z.string().describe('What is wrong, with the character position for an expression.'),
  })
  .describe('One problem, or warning, of a definition.');

const modelCatalogSchema = z
  .strictObject({
    description: z.string(),
    default_profile: z.string(),
    supported_profiles: z.array(z.string()),
    supported_states: z.array(z.string()),
    record_fields: z.array(
      z.strictObject({ name: z.string(), type: z.enum(['integer', 'number', 'string']), description: z.string(), nullable: z.boolean() }),
    ),
    state_transitions: z.record(z.string(), z.array(z.string())),
    scenario_events: z.array(z.strictObject({ type: z.string(), description: z.string(), effect: z.string() })),
    engine_versions: z.array(z.string()).describe('The engine versions that run the model, newest first (3.0.0 and later).'),
  })
  .describe("The Preset resource's fields for the model.");

export const modelSchema = z
  .strictObject({
    name: z.string().regex(new RegExp(NAME)),
    version: z.int().min(1).describe('1, 2, … per name; a version never changes.'),
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).describe('`sha256:` + hex of the canonical definition (keys sorted, no whitespace).'),
    created_at: z.iso.datetime(),
    definition: modelDefinitionSchema,
    warnings: z.array(modelIssueSchema).describe('Problems that do not make the model wrong: unreachable states, unused params, …'),
    catalog: modelCatalogSchema,
  })
  .describe("One version of one of the account's models.")
  .meta({ examples: [modelExamples.model] });

const modelSummarySchema = z.strictObject({
  name: z.string(),
  version: z.int().min(1),
  digest: z.string(),
  created_at: z.iso.datetime(),
  description: z.string(),
});

export const modelListSchema = z
  .array(modelSummarySchema)
  .describe("The account's models, latest version each, newest first.")
  .meta({ examples: [modelExamples.list] });

export const modelDeletedSchema = z.strictObject({ status: z.literal('deleted'), name: z.string() });

const summaryFieldSchema = z.strictObject({ mean: z.number().nullable(), min: z.number().nullable(), max: z.number().nullable(), nulls: z.int() });

export const modelValidationSchema = z.strictObject({
  valid: z.boolean(),
  issues: z.array(modelIssueSchema).describe('Every problem at once; empty when valid.'),
  warnings: z.array(modelIssueSchema),
  sample: z
    .strictObject({
      records: z.array(z.record(z.string(), z.union([z.number(), z.string(), z.null()]))).describe('The first 20 records of seed 1 with the default profile.'),
      summary: z.strictObject({
        records: z.int().describe('Records summarised: 10,000.'),
        states: z.record(z.string(), z.number()).describe('Per state, the share of records in it.'),
        fields: z.record(z.string(), summaryFieldSchema).describe('Per number or integer field, mean, min, max and nulls.'),
      }),
    })
    .nullable()
    .describe('Null when the definition is not valid.'),
}).meta({ examples: [modelExamples.validation] });

export type ModelResponse = z.infer<typeof modelSchema>;
export type ModelSummary = z.infer<typeof modelSummarySchema>;
export type ModelValidation = z.infer<typeof modelValidationSchema>;
