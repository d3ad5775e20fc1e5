import { z } from 'zod';

/**
 * The entries a worker appends to the waiting API process's reply stream (shared/jobs/replyKeys.ts), one
 * per chunk of a streamed run and one final entry per run. Field `m` holds this notice as JSON, field `b`
 * the body bytes it carries. A small run is one `completed` entry holding the whole body: its bytes travel
 * once. `seq` numbers a run's chunks from 0; the final entry's seq is the number of chunks before it, so
 * the reader notices a run that started over (a job retaken after its worker died) and fails it.
 */
const simulationReplySchema = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('chunk'),
    /** The run id: the simulation id, or a replay's own id (simulationJob `runId`). */
    simulationId: z.uuid(),
    seq: z.int().min(0),
    /** Where to acknowledge this run's chunks or abort it: the producing worker's control channel. */
    controlTo: z.string().min(1).max(200),
  }),
  z.object({
    outcome: z.literal('completed'),
    /** The run id: the simulation id, or a replay's own id (simulationJob `runId`). */
    simulationId: z.uuid(),
    seq: z.int().min(0),
    /** Epoch milliseconds, the worker's clock. */
    startedAt: z.int(),
    finishedAt: z.int(),
    /** The thread's compute time, as in metadata.compute_ms. */
    computeMs: z.int().min(0),
  }),
  z.object({
    outcome: z.literal('failed'),
    /** The run id, as above. */
    simulationId: z.uuid(),
    startedAt: z.int(),
    finishedAt: z.int(),
  }),
]);

export type SimulationReply = z.infer<typeof simulationReplySchema>;

/** Parses an entry's notice; anything malformed is dropped by the caller, never thrown. */
export const parseSimulationReply = (message: string): SimulationReply | undefined => {
  try {
    const parsed = simulationReplySchema.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};
