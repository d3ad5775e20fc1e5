import type { BenchStack } from './startBenchStack.ts';
import type { LoadOptions } from './loadTest.ts';

/** The benches' one queued request: POST /v1/simulations, finance, n interactions, a fixed seed. */
export const simulationLoad = (stack: Pick<BenchStack, 'apiUrl' | 'key'>, n: number): LoadOptions => ({
  url: `${stack.apiUrl}/v1/simulations`,
  method: 'POST',
  body: { preset: 'finance', num_interactions: n, seed: 42 },
  headers: { authorization: `Bearer ${stack.key}` },
});
