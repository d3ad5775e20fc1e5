import { Readable } from 'node:stream';
import type { Next, ParameterizedContext } from 'koa';
import { describeError } from '../../shared/errors/describeError.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';

/**
 * Runs the rest of an admitted request's chain while it holds what admission took, and releases the
 * admission's lease once the answer is over. A body that is already whole releases at once; a streamed
 * run outlives its handler, so it holds its slot until its stream has ended (settlement usually freed
 * it already) or been destroyed, or a second run could start while the first still streams. A client
 * that hangs up before its answer is written stops holding its slot at once; its run settles as usual.
 * The lease decides what goes back (createRunLease.ts): each of its steps takes effect once.
 */
export const holdAdmission = async (ctx: ParameterizedContext, services: Services, admitted: SimulationAdmission, next: Next): Promise<void> => {
  const { lease } = admitted;
  const release = (): void => {
    lease.release().catch((error: unknown) => services.logger.warn({ simulation_id: admitted.simulationId, error: describeError(error) }, 'could not release a run'));
  };
  const releaseOnHangUp = (): void => {
    if (!ctx.res.writableFinished) {
      release();
    }
  };
  ctx.res.once('close', releaseOnHangUp);
  try {
    await next();
  } finally {
    ctx.res.off('close', releaseOnHangUp);
    const body: unknown = ctx.body;
    if (body instanceof Readable && !body.closed) {
      body.once('close', release);
    } else {
      await lease.release();
    }
  }
};
