import { z } from 'zod';

/** BullMQ job name; the queue carries one kind of job, the name only labels it in dashboards. */
export const SIMULATION_JOB_NAME = 'simulate';

/**
 * What travels on the queue: the run's inputs and where to answer, nothing that identifies a person or a
 * credential (no key, no e-mail, no account). The job id is the simulation id. The worker parses this from
 * `unknown`, because a job enqueued by an older or newer deployment can outlive the code that wrote it.
 */
export const simulationJobDataSchema = z.object({
  simulationId: z.uuid(),
  preset: z.enum(['education', 'finance', 'healthcare', 'mobile_app']),
  profile: z.string().min(1).max(64),
  seed: z.int().min(0).max(4_294_967_295),
  numInteractions: z.int().min(1),
  /** The answering API's version, echoed as metadata.api_version so a rolling deploy never mislabels it. */
  apiVersion: z.string().min(1).max(32),
  /** Epoch milliseconds after which nobody waits for the result: the worker aborts the run then. */
  deadline: z.int().positive(),
  /** The Pub/Sub channel of the one API process waiting for this result. */
  replyTo: z.string().min(1).max(200),
});

export type SimulationJobData = z.infer<typeof simulationJobDataSchema>;
