/** Engine 4's `order`: a sequence after another, or a population merged in event_time order (docs/api.md#event-time). */
export type RunOrder = 'sequence' | 'time';
