import type { Queue } from 'bullmq';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { DatabasePool } from 'slonik';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PRESET_NAMES } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Logger } from '../../shared/logger.ts';
import type { WorkerPoolSnapshot } from '../../shared/metrics/workerPools.ts';
import { checkDependencies } from '../health/checkDependencies.ts';
import type { Lifecycle } from '../Lifecycle.ts';
import { collectQueueCounts } from './collectQueueCounts.ts';
import { readWorkerPools } from './readWorkerPools.ts';
import { SIMULATION_METRIC_OUTCOMES } from './recordSimulation.ts';
import { sharedWhilePending } from './sharedWhilePending.ts';

/** Every series this process reports, in a registry of its own (tests get one per app, never a global). */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly simulations: Counter<'preset' | 'outcome'>;
  readonly queueWait: Histogram<'preset'>;
  readonly compute: Histogram<'preset'>;
  readonly limitRejections: Counter<'code'>;
}

export interface CreateMetricsOptions {
  /** The API's simulation queue: its job counts are read when scraped. */
  readonly queue: Queue;
  /** A fail-fast connection, for the worker pools' hash. */
  readonly redis: RedisClient;
  readonly redisPrefix: string;
  readonly logger: Logger;
  /** For the readiness gauges: the same checks /ready runs, once per scrape. */
  readonly pool: DatabasePool;
  readonly lifecycle: Lifecycle;
}

// Seconds. From a cached catalog read (~1 ms) to the 30 s simulation deadline.
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const QUEUE_WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const COMPUTE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const createMetrics = (options: CreateMetricsOptions): Metrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which `promtool check metrics` refuses (a `_total` suffix promises a
  // counter); each is the sum over `type` of the gauge of the same name without it, kept.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  const registers = [registry];

  const httpRequestDuration = new Histogram({
    name: 'bss_http_request_duration_seconds',
    help: 'HTTP request duration by route template (`unmatched` for unknown routes) and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const simulations = new Counter({
    name: 'bss_simulations_total',
    help: `Admitted simulations by canonical preset (model for every model run) and outcome (${SIMULATION_METRIC_OUTCOMES.join(', ')}): cancelled is a run whose client left or stopped reading, failed a fault of the service.`,
    labelNames: ['preset', 'outcome'] as const,
    registers,
  });
  // Every series exists from the start at 0, so a rate over it (and the dashboard's cancelled series) is
  // defined before its first event instead of appearing only once one happened.
  for (const preset of PRESET_NAMES) {
    for (const outcome of SIMULATION_METRIC_OUTCOMES) {
      simulations.inc({ preset, outcome }, 0);
    }
  }
  const queueWait = new Histogram({
    name: 'bss_simulation_queue_wait_seconds',
    help: 'Time from enqueueing a simulation to a worker starting it.',
    labelNames: ['preset'] as const,
    buckets: QUEUE_WAIT_BUCKETS,
    registers,
  });
  const compute = new Histogram({
    name: 'bss_simulation_compute_seconds',
    help: "Engine compute time of completed simulations (the result's metadata.compute_ms).",
    labelNames: ['preset'] as const,
    buckets: COMPUTE_BUCKETS,
    registers,
  });
  const limitRejections = new Counter({
    name: 'bss_limit_rejections_total',
    help: 'Simulation requests refused by a limit, by error code.',
    labelNames: ['code'] as const,
    registers,
  });

  const queueJobs: Gauge<'state'> = new Gauge({
    name: 'bss_queue_jobs',
    help: 'BullMQ simulation jobs by state, read from Redis when scraped (completed jobs are removed at once).',
    labelNames: ['state'] as const,
    registers,
    collect: () => collectQueueCounts(queueJobs, options.queue, options.logger),
  });
  // One Redis read per scrape serves the four gauges: prom-client collects metrics concurrently.
  const readPools = sharedWhilePending(() => readWorkerPools(options.redis, options.redisPrefix));
  const poolGauge = (name: string, help: string, pick: (snapshot: WorkerPoolSnapshot) => number): void => {
    const gauge: Gauge<'worker'> = new Gauge({
      name,
      help,
      labelNames: ['worker'] as const,
      registers,
      collect: async () => {
        gauge.reset();
        for (const [worker, snapshot] of await readPoolsSafely()) {
          gauge.set({ worker }, pick(snapshot));
        }
      },
    });
  };
  const readPoolsSafely = async (): Promise<ReadonlyMap<string, WorkerPoolSnapshot>> => {
    try {
      return await readPools();
    } catch (error) {
      options.logger.debug({ error: describeError(error) }, 'worker pool gauges unavailable');
      return new Map();
    }
  };
  poolGauge('bss_worker_pool_threads', 'Engine threads of each live worker process (as published within the last 15 s).', (s) => s.threads);
  poolGauge('bss_worker_pool_threads_busy', 'Engine threads running a simulation, per worker process.', (s) => s.busy);
  poolGauge(
    'bss_worker_pool_queued_tasks',
    "Simulations waiting in a worker process's thread pool (normally 0: a worker takes one job per thread).",
    (s) => s.queued,
  );
  const liveWorkers: Gauge = new Gauge({
    name: 'bss_worker_processes',
    help: 'Worker processes that published pool gauges within the last 15 s.',
    registers,
    collect: async () => {
      liveWorkers.set((await readPoolsSafely()).size);
    },
  });

  // What /ready answers, as series: a load balancer sees /ready, Prometheus sees these (alerts.yml).
  const checkReadiness = sharedWhilePending(() => checkDependencies({ pool: options.pool, redis: options.redis }));
  const dependencyUp: Gauge<'dependency'> = new Gauge({
    name: 'bss_dependency_up',
    help: 'Whether this API process reaches a backing service (1) or not (0), by dependency: database, redis. The checks of /ready.',
    labelNames: ['dependency'] as const,
    registers,
    collect: async () => {
      const { database, redis } = await checkReadiness();
      dependencyUp.set({ dependency: 'database' }, database ? 1 : 0);
      dependencyUp.set({ dependency: 'redis' }, redis ? 1 : 0);
    },
  });
  const ready: Gauge = new Gauge({
    name: 'bss_ready',
    help: 'Whether GET /ready answers 200 (1) or 503 (0): both dependencies reachable and the process not draining.',
    registers,
    collect: async () => {
      const { database, redis } = await checkReadiness();
      ready.set(database && redis && !options.lifecycle.draining ? 1 : 0);
    },
  });

  return { registry, httpRequestDuration, simulations, queueWait, compute, limitRejections };
};
