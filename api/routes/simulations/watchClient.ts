import type { ParameterizedContext } from 'koa';
import type { RunOptions } from '../../runs/executeRun.ts';

/**
 * How a run meets its client: aborted when the client leaves before its body is whole (the run is stopped
 * in its thread and settled cancelled), its stalls measured on the client's connection (docs/fair-use.md).
 */
export const watchClient = (ctx: ParameterizedContext): Pick<RunOptions, 'signal' | 'connection'> => {
  const gone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) {
      gone.abort();
    }
  });
  return { signal: gone.signal, connection: ctx.req.socket };
};
