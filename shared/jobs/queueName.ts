/** The one BullMQ queue simulations travel on; API and worker agree on it through this constant. */
export const SIMULATION_QUEUE = 'simulations';

/** The queue live streams travel on (docs/streams.md): a long job per stream, its clock. */
export const STREAM_QUEUE = 'streams';
