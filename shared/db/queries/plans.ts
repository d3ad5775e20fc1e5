import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

export const planRowSchema = z.object({
  name: z.string(),
  requests_per_minute: z.number(),
  monthly_requests: z.number(),
  // bigint in the schema, which slonik's preset parses to a BigInt; every plan's value fits a number.
  monthly_interactions: z.coerce.number(),
  max_interactions_per_request: z.number(),
  max_concurrent_simulations: z.number(),
  max_active_api_keys: z.number(),
});

export type PlanRow = z.infer<typeof planRowSchema>;

export const findPlanByName = async (connection: CommonQueryMethods, name: string): Promise<PlanRow | null> =>
  connection.maybeOne(sql.type(planRowSchema)`
    SELECT name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request,
      max_concurrent_simulations, max_active_api_keys
    FROM plans WHERE name = ${name}
  `);

export const listPlanNames = async (connection: CommonQueryMethods): Promise<readonly string[]> =>
  connection.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM plans ORDER BY name`);

// The catalog's row: the limits a principal carries, and the ones only a write of their resource reads
// (under its own lock, from PostgreSQL: shared/db/queries/models.ts and streams.ts).
const planCatalogRowSchema = planRowSchema.extend({ max_models: z.number(), max_concurrent_streams: z.number() });

export type PlanCatalogRow = z.infer<typeof planCatalogRowSchema>;

/** Every plan, smallest first: what the console sets beside the caller's own. */
export const listPlans = async (connection: CommonQueryMethods): Promise<readonly PlanCatalogRow[]> =>
  connection.any(sql.type(planCatalogRowSchema)`
    SELECT name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request,
      max_concurrent_simulations, max_active_api_keys, max_models, max_concurrent_streams
    FROM plans ORDER BY monthly_interactions, monthly_requests, requests_per_minute, name
  `);
