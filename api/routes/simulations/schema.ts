import { z } from 'zod';
import { resolvePreset } from '../../../shared/engine/index.ts';

/**
 * POST /v1/simulations body (DECISIONS "Simulation request"). `num_interactions` is any positive safe
 * integer here: its upper bound is the caller's plan maximum, refused with 403 by the limits, not 422.
 */
export const simulationRequestSchema = z
  .strictObject({
    preset: z.string().describe('Preset name, or the alias `mobile`.'),
    num_interactions: z.int().min(1).describe('Number of interactions to generate; at most the plan maximum.'),
    seed: z.int().min(0).max(4_294_967_295).optional().describe('Makes the run reproducible; drawn and returned when absent.'),
    profile: z.string().optional().describe("One of the preset's supported_profiles; its default_profile when absent."),
  })
  .superRefine((body, context) => {
    const preset = resolvePreset(body.preset);
    if (preset === undefined) {
      context.addIssue({ code: 'custom', path: ['preset'], message: 'Unknown preset; see GET /v1/presets.' });
      return;
    }
    if (body.profile !== undefined && !preset.supported_profiles.includes(body.profile)) {
      context.addIssue({
        code: 'custom',
        path: ['profile'],
        message: `Unknown profile for ${preset.name}; one of: ${preset.supported_profiles.join(', ')}.`,
      });
    }
  });

export type SimulationRequestBody = z.infer<typeof simulationRequestSchema>;

const recordSchema = z.record(z.string(), z.union([z.number(), z.string()]));

/** The Simulation result, as the worker writes it (the API sends those bytes without parsing them). */
export const simulationResultSchema = z.strictObject({
  simulation_id: z.uuid(),
  preset: z.enum(['education', 'finance', 'healthcare', 'mobile_app']),
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

export type SimulationResult = z.infer<typeof simulationResultSchema>;
