import { Readable } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import { describeError } from '../../../shared/errors/describeError.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { Run } from '../../runs/createRun.ts';

/**
 * Answers with `answer` while `run` holds what admission took, and releases the run once the answer is
 * over. A body that is already whole releases at once; a streamed body outlives its handler, so the run
 * holds its slot until its stream has ended (settlement usually freed it already) or been destroyed, or a
 * second run could start while the first still streams. A client that hangs up before its answer is
 * written stops holding its slot at once; its run settles as usual. The run decides what goes back
 * (api/runs/createRun.ts): each of its steps takes effect once.
 */
export const holdWhileAnswering = async (ctx: ParameterizedContext, logger: Logger, run: Run, answer: () => Promise<void>): Promise<void> => {
  const release = (): void => {
    run.release().catch((error: unknown) => logger.warn({ simulation_id: run.runId, error: describeError(error) }, 'could not release a run'));
  };
  const releaseOnHangUp = (): void => {
    if (!ctx.res.writableFinished) {
      release();
    }
  };
  ctx.res.once('close', releaseOnHangUp);
  try {
    await answer();
  } finally {
    ctx.res.off('close', releaseOnHangUp);
    const body: unknown = ctx.body;
    if (body instanceof Readable && !body.closed) {
      body.once('close', release);
    } else {
      await run.release();
    }
  }
};
