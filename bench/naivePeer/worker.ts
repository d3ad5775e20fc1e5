import { Worker } from 'bullmq';
import { ENGINE_VERSION, resolvePreset } from '../../shared/engine/index.ts';
import { API_VERSION } from '../../shared/version.ts';
import { createSimulationPool } from '../../worker/pool.ts';
import { NAIVE_QUEUE, naiveConnection } from './naiveConnection.ts';

// The naive peer's worker: a BullMQ Worker whose processor runs the service's own engine in the service's
// own piscina pool (same thread entry, same thread count) and returns the JSON document as the job's
// return value, which BullMQ stores in the job and copies into its events stream for the waiting API.
const threads = Number(process.env.WORKER_THREADS ?? 1);
const pool = createSimulationPool(threads);

interface NaiveRequest {
  readonly preset: string;
  readonly num_interactions: number;
  readonly seed: number;
}

const worker = new Worker<NaiveRequest, string>(
  NAIVE_QUEUE,
  async (job) => {
    const preset = resolvePreset(job.data.preset);
    if (preset === undefined) {
      throw new Error(`unknown preset ${job.data.preset}`);
    }
    const result = await pool.run({
      simulationId: job.id ?? '',
      preset: preset.name,
      profile: preset.default_profile,
      seed: job.data.seed,
      numInteractions: job.data.num_interactions,
      serviceVersion: ENGINE_VERSION,
      apiVersion: API_VERSION,
      format: 'json',
    });
    return Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength).toString('utf8');
  },
  { connection: naiveConnection(), concurrency: threads },
);

await worker.waitUntilReady();
process.stdout.write('naive worker ready\n');
process.on('SIGTERM', () => {
  worker
    .close()
    .then(() => pool.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});
