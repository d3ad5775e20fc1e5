import { z } from 'zod';
import { OUTPUT_FORMATS } from '../engine/outputFormat.ts';
import { PRESET_NAMES } from '../engine/presetTypes.ts';
import { runSpecificationSchema } from '../runs/runSpecification.ts';
import { MAX_SIMULATION_TIMEOUT_MS } from '../config.ts';

// Clocks of the API and worker hosts may differ a little; a deadline beyond the longest timeout by more is no API's.
const DEADLINE_CLOCK_SKEW_MS = 60_000;
// A deadline long past is no run anyone waits for; older than this it is malformed, not merely late.
const DEADLINE_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** BullMQ job name; the queue carries one kind of job, the name only labels it in dashboards. */
export const SIMULATION_JOB_NAME = 'simulate';

/** The first member of the line an `outcomeLine` run ends with (worker/outcomeLine.ts): what the line is. */
export const OUTCOME_LINE_TAG = 'scenario_outcome';

/**
 * What travels on the queue: the run's specification (shared/runs/runSpecification.ts) and where to
 * answer, nothing that identifies a person or a credential (no key, no e-mail, no account). The job id is
 * the run id (`runId`, else the simulation id). The worker parses this from `unknown`, because a job
 * enqueued by an older or newer deployment can outlive the code that wrote it.
 */
export const simulationJobDataSchema = runSpecificationSchema
  .extend({
    /**
     * The exact engine version to run, resolved by the API. A job enqueued by a deployment that predates
     * engine selection only knew engine 1.0.0, so that is what it gets.
     */
    serviceVersion: runSpecificationSchema.shape.serviceVersion.default('1.0.0'),
    /**
     * This run's own id when it differs from simulationId: a replay makes a recorded simulation again
     * under its recorded id, and several replays of one simulation may be in flight at once, so each
     * needs its own job id, data plane stream and slot. Absent for a new run, whose run id is its simulation id.
     */
    runId: z.uuid().optional(),
    /** The answering API's version, echoed as metadata.api_version so a rolling deploy never mislabels it. */
    apiVersion: z.string().min(1).max(32),
    /** Epoch milliseconds after which nobody waits for the result: the worker aborts the run then. */
    // Bounded against the clock at parse time (the worker parses each job as it takes it): a job with a
    // deadline years ahead would hold a thread as long as it likes.
    deadline: z
      .int()
      .positive()
      .refine((deadline) => deadline <= Date.now() + MAX_SIMULATION_TIMEOUT_MS + DEADLINE_CLOCK_SKEW_MS, 'deadline too far ahead')
      .refine((deadline) => deadline >= Date.now() - DEADLINE_MAX_AGE_MS, 'deadline absurdly old'),
    /** The data plane address of the one API process waiting for this result (shared/jobs/dataPlaneProtocol.ts). */
    replyTo: z.string().min(1).max(200),
    /** The response format; a job from before formats existed is JSON. */
    format: z.enum(OUTPUT_FORMATS).default('json'),
    /**
     * An NDJSON run's body ends with one more line, the engine's scenario outcome (worker/outcomeLine.ts):
     * how a dataset's archive learns `placed` and `unplaced` without running the engine in the API process
     * (docs/datasets.md#2-the-archive). Set only by the dataset's runs (api/datasets/streamRunRecords.ts);
     * how one answer is printed, like `format`, not what is run: no part of the run's specification,
     * ledger, idempotency or history.
     */
    outcomeLine: z.literal(true).optional(),
  })
  .refine((job) => job.outcomeLine === undefined || job.format === 'ndjson', 'an outcome line ends only an NDJSON body')
  .refine((job) => (job.model !== undefined ? job.model.name === job.preset : (PRESET_NAMES as readonly string[]).includes(job.preset)), 'preset names no preset, or not the model');

export type SimulationJobData = z.infer<typeof simulationJobDataSchema>;
