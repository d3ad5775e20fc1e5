import { Readable } from 'node:stream';
import type { Next, ParameterizedContext } from 'koa';
import { describeError } from '../../shared/errors/describeError.ts';
import { releaseSimulation } from './releaseSimulation.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';

/**
 * Runs the rest of an admitted request's chain while it holds what admission took, and hands back what is
 * still held once the answer is over. A body that is already whole releases at once; a streamed run
 * outlives its handler, so it holds its slot until its stream has ended (after settlement, which frees
 * the slot itself) or been destroyed, or a second run could start while the first still streams. A client
 * that hangs up before its answer is written stops holding its slot at once; its run settles as usual.
 * `giveBack` says whether the quota goes back too: only for a new run the ledger never recorded (with a
 * row, the row is the truth and the stale-run sweeper gives back, so nothing is given back twice).
 */
export const holdAdmission = async (
  ctx: ParameterizedContext,
  services: Services,
  admitted: SimulationAdmission,
  giveBack: () => boolean,
  next: Next,
): Promise<void> => {
  const release = (): Promise<void> => releaseSimulation(services, { ...admitted, giveBack: giveBack() });
  const releaseSlotOnHangUp = (): void => {
    if (!ctx.res.writableFinished) {
      releaseSimulation(services, { ...admitted, giveBack: false }).catch(() => {});
    }
  };
  ctx.res.once('close', releaseSlotOnHangUp);
  try {
    await next();
  } finally {
    ctx.res.off('close', releaseSlotOnHangUp);
    const body: unknown = ctx.body;
    if (body instanceof Readable && !body.closed) {
      body.once('close', () => {
        if (!admitted.settled) {
          release().catch((error: unknown) => services.logger.warn({ simulation_id: admitted.simulationId, error: describeError(error) }, 'could not release a streamed run'));
        }
      });
    } else if (!admitted.settled) {
      await release();
    }
  }
};
