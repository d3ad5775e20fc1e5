/** The one BullMQ queue simulations travel on; API and worker agree on it through this constant. */
export const SIMULATION_QUEUE = 'simulations';
