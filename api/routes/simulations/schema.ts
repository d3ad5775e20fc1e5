import { z } from 'zod';
import { PRESET_NAMES, resolveEngineVersion, resolvePreset } from '../../../shared/engine/index.ts';
import type { SimulationRequest } from '../../simulations/SimulationRequest.ts';

// The alias is resolved here, once: everything after validation (admission, ledger, job, headers,
// idempotent record) sees only the canonical preset.
const presetField = z
  .string()
  .transform((name, context) => {
    const preset = resolvePreset(name);
    if (preset === undefined) {
      context.addIssue({ code: 'custom', message: 'Unknown preset; see GET /v1/presets.' });
      return z.NEVER;
    }
    return preset;
  })
  .describe('Preset name, or the alias `mobile`.');

/**
 * POST /v1/simulations body (DECISIONS "Simulation request"), parsed into the request it asks for: the
 * canonical preset, the profile to use and the exact engine. `num_interactions` is any positive safe
 * integer here: its upper bound is the caller's plan maximum, refused with 403 by the limits, not 422.
 */
export const simulationRequestSchema = z
  .strictObject({
    preset: presetField,
    num_interactions: z.int().min(1).describe('Number of interactions to generate; at most the plan maximum.'),
    seed: z.int().min(0).max(4_294_967_295).optional().describe('Makes the run reproducible; drawn and returned when absent.'),
    profile: z.string().optional().describe("One of the preset's supported_profiles; its default_profile when absent."),
    engine_version: z
      .string()
      .optional()
      .describe(
        "The engine to run: a major (\"1\", \"2\") or an exact service_version the service has (see the preset's engine_versions); the newest when absent.",
      ),
  })
  .transform((body, context): SimulationRequest => {
    const { preset } = body;
    if (body.profile !== undefined && !preset.supported_profiles.includes(body.profile)) {
      context.addIssue({
        code: 'custom',
        path: ['profile'],
        message: `Unknown profile for ${preset.name}; one of: ${preset.supported_profiles.join(', ')}.`,
      });
    }
    const serviceVersion = resolveEngineVersion(body.engine_version);
    if (serviceVersion === undefined || !preset.engine_versions.includes(serviceVersion)) {
      context.addIssue({
        code: 'custom',
        path: ['engine_version'],
        message: `Unknown engine version; a major or one of: ${preset.engine_versions.join(', ')}.`,
      });
      return z.NEVER;
    }
    return { preset, profile: body.profile ?? preset.default_profile, seed: body.seed, numInteractions: body.num_interactions, serviceVersion };
  });

// Engine 3's `scenario_event` is null outside an event.
const recordSchema = z.record(z.string(), z.union([z.number(), z.string(), z.null()]));

/** The Simulation result, as the worker writes it (the API sends those bytes without parsing them). */
export const simulationResultSchema = z.strictObject({
  simulation_id: z.uuid(),
  preset: z.enum(PRESET_NAMES),
  profile: z.string(),
  num_interactions: z.int().min(1),
  seed: z.int().min(0).max(4_294_967_295),
  data: z.array(recordSchema),
  metadata: z.strictObject({
    service_version: z.string().regex(/^\d+\.\d+\.\d+$/),
    api_version: z.string().regex(/^\d+\.\d+\.\d+$/),
    compute_ms: z.int().min(0),
    reproducible: z.boolean(),
  }),
});
