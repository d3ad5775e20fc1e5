import { randomBytes, randomUUID } from 'node:crypto';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import type { Services } from '../../api/Services.ts';
import { createRun, type Run } from '../../api/runs/createRun.ts';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import { admitSimulation } from '../../api/limits/admitSimulation.ts';
import { ENGINE_VERSION } from '../../shared/engine/index.ts';
import { buildAccount, buildApiKey } from './factories.ts';

export interface PlanOverrides {
  readonly requests_per_minute?: number;
  readonly monthly_requests?: number;
  readonly monthly_interactions?: number;
  readonly max_interactions_per_request?: number;
  readonly max_concurrent_simulations?: number;
  readonly max_active_api_keys?: number;
  readonly max_models?: number;
  readonly max_concurrent_streams?: number;
}

/**
 * A plan of the test's own in which every limit but the ones under test is out of the way, so a test
 * isolates the limit it is about.
 */
const buildPlan = async (pool: DatabasePool, overrides: PlanOverrides): Promise<string> => {
  const name = `test_${randomBytes(5).toString('hex')}`;
  await pool.query(sql.type(z.object({}))`
    INSERT INTO plans (name, requests_per_minute, monthly_requests, monthly_interactions, max_interactions_per_request,
      max_concurrent_simulations, max_active_api_keys, max_models, max_concurrent_streams)
    VALUES (${name}, ${overrides.requests_per_minute ?? 100_000}, ${overrides.monthly_requests ?? 1_000_000},
      ${overrides.monthly_interactions ?? 2_000_000_000}, ${overrides.max_interactions_per_request ?? 10_000_000},
      ${overrides.max_concurrent_simulations ?? 1000}, ${overrides.max_active_api_keys ?? 10}, ${overrides.max_models ?? 100},
      ${overrides.max_concurrent_streams ?? 100})
  `);
  return name;
};

/** An account on a plan built from `overrides`, with one API key. */
export const buildCaller = async (pool: DatabasePool, overrides: PlanOverrides): Promise<{ accountId: string; key: string; plan: string }> => {
  const plan = await buildPlan(pool, overrides);
  const account = await buildAccount(pool, { plan });
  const apiKey = await buildApiKey(pool, account.id);
  return { accountId: account.id, key: apiKey.key, plan };
};

/** Completed ledger rows, as if the account had already run `requests` simulations totalling `interactions`. */
export const recordCompletedUsage = async (
  pool: DatabasePool,
  accountId: string,
  now: Date,
  usage: { requests: number; interactions: number },
): Promise<void> => {
  const periodStart = monthlyPeriod(now).start.toISOString();
  for (let index = 0; index < usage.requests; index += 1) {
    // Spread the interactions so they sum exactly to the total.
    const share = Math.floor(usage.interactions / usage.requests) + (index < usage.interactions % usage.requests ? 1 : 0);
    await pool.query(sql.type(z.object({}))`
      INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, finished_at, charged_interactions)
      VALUES (${randomUUID()}, ${accountId}, 'finance', 'balanced_investor', 1, ${Math.max(share, 1)}, 'completed',
        ${periodStart}::timestamptz, now(), ${Math.max(share, 1)})
    `);
  }
};

/** A run's ledger fields as a request without a credential of note would give them to admission. */
export const runInput = (accountId: string, numInteractions: number, seed = 1) => ({
  accountId,
  apiKeyId: null,
  sessionId: null,
  preset: 'finance',
  profile: 'balanced_investor',
  seed,
  numInteractions,
  serviceVersion: ENGINE_VERSION,
});

/** An admitted run and what admission took for it; `lease` is the run itself, its one owner. */
export interface TestAdmission {
  readonly simulationId: string;
  readonly accountId: string;
  readonly plan: PlanRow;
  readonly period: MonthlyPeriod;
  readonly numInteractions: number;
  readonly run: Run;
  readonly lease: Run;
}

/**
 * A run admitted through the real admission script (a slot, the quota reserved, the run in flight), for
 * tests that run it or settle it directly, past the HTTP chain. `spec` overrides what it makes (a profile
 * the route's validation would refuse, say).
 */
export const buildAdmission = async (services: Services, accountId: string, numInteractions: number, spec: Partial<RunSpecification> = {}): Promise<TestAdmission> => {
  const plan = {
    name: 'enterprise',
    requests_per_minute: 100_000,
    monthly_requests: 1_000_000,
    monthly_interactions: 500_000_000,
    max_interactions_per_request: 1_000_000,
    max_concurrent_simulations: 1000,
    max_active_api_keys: 50,
  };
  const admission = await admitSimulation(services, { accountId, plan, requestId: randomUUID(), run: runInput(accountId, numInteractions) });
  if (admission.simulationId === undefined || admission.admitted === undefined) {
    throw new Error(`not admitted: ${admission.refusal?.code ?? 'no reason'}`);
  }
  const { simulationId, period, admitted } = admission;
  const { preset, profile, seed, serviceVersion } = admitted.run;
  const run = createRun(services, { runId: simulationId, accountId, period, spec: { simulationId, preset, profile, seed, numInteractions, serviceVersion, ...spec }, admitted });
  services.leases.hold(run);
  return { simulationId, accountId, plan, period, numInteractions, run, lease: run };
};
