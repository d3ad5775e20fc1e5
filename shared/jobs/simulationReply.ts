import { z } from 'zod';

/**
 * The notice a worker publishes on the waiting API process's reply channel. It is small on purpose: the
 * result's bytes wait under simulationResultKey() and are fetched by the one process that asked, so no
 * process ever receives or parses a result that is not its own.
 */
export const simulationReplySchema = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('completed'),
    simulationId: z.uuid(),
    /** Epoch milliseconds, the worker's clock. */
    startedAt: z.int(),
    finishedAt: z.int(),
    /** The thread's compute time, as in metadata.compute_ms. */
    computeMs: z.int().min(0),
  }),
  z.object({
    outcome: z.literal('failed'),
    simulationId: z.uuid(),
    startedAt: z.int(),
    finishedAt: z.int(),
  }),
]);

export type SimulationReply = z.infer<typeof simulationReplySchema>;

/** Parses a message off the reply channel; anything malformed is dropped by the caller, never thrown. */
export const parseSimulationReply = (message: string): SimulationReply | undefined => {
  try {
    const parsed = simulationReplySchema.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};
