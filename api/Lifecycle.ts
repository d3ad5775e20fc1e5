/** Whether the process is shutting down: /ready turns 503 so load balancers stop sending traffic. */
export interface Lifecycle {
  draining: boolean;
}
