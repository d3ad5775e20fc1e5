import type { TestFn } from 'ava';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { startTestApp, type TestApp } from './startTestApp.ts';
import { startTestWorker } from './startTestWorker.ts';

/**
 * One app on its own database and Redis prefix, and one in-process worker sharing that prefix, for a whole
 * test file: started before its tests, closed after them. `started` receives the app once it listens (and may prepare
 * the file's fixtures, awaited before the first test).
 */
export const useFileStack = (test: TestFn, started: (app: TestApp) => Promise<void> | void, options: { readonly threads?: number } = {}): void => {
  let app: TestApp | undefined;
  let worker: SimulationWorker | undefined;
  test.before(async () => {
    app = await startTestApp();
    worker = await startTestWorker({ redisPrefix: app.redisPrefix, ...(options.threads === undefined ? {} : { threads: options.threads }) });
    await started(app);
  });
  test.after.always(async () => {
    await worker?.close();
    await app?.close();
  });
};
