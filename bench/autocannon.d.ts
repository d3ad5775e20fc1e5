// autocannon ships no types; this declares the part the benchmark uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonOptions {
    url: string;
    method?: string;
    connections?: number;
    duration?: number;
    amount?: number;
    headers?: Record<string, string>;
    body?: string;
  }

  interface AutocannonResult {
    errors: number;
    timeouts: number;
    non2xx: number;
  }

  type AutocannonInstance = EventEmitter & PromiseLike<AutocannonResult>;

  export default function autocannon(options: AutocannonOptions): AutocannonInstance;
}
