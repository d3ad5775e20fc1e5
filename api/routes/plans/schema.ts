import { z } from 'zod';

/** A plan's limits, by the names GET /v1/usage gives them, plus its active-key and live-stream limits. */
const planSchema = z.strictObject({
  name: z.string(),
  requests_per_minute: z.int().describe('Simulation requests a minute (sliding window).'),
  monthly_requests: z.int().describe('Simulation requests a calendar month (UTC).'),
  monthly_interactions: z.int().describe('Interactions generated a calendar month (UTC).'),
  max_interactions_per_request: z.int().describe('Interactions in one simulation request.'),
  max_concurrent_simulations: z.int().describe('Simulations running at once.'),
  max_active_api_keys: z.int().describe('Active API keys (a key in its roll grace period does not count).'),
  max_models: z.int().describe('Models (names, each with all its versions) the account may have; a deleted model does not count.'),
  max_concurrent_streams: z.int().describe('Live streams running at once (docs/streams.md).'),
});

export const planListSchema = z.array(planSchema).describe('Every plan the service has, smallest first.');

export type Plan = z.infer<typeof planSchema>;
