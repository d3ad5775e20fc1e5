import { syncBuiltinESMExports } from 'node:module';
import { createInterface } from 'node:readline';
import timers from 'node:timers/promises';

// Preloaded into the CLI by the retry tests (`node --import`): a test clock for the SDK's Retry-After
// waits. A wait ends when the test writes a line on the CLI's stdin, once it has aged the service's rate
// window by as much, so the tests check real 429s of the real limiter without sleeping for a minute.
const waiting: Array<() => void> = [];
createInterface({ input: process.stdin }).on('line', () => {
  waiting.shift()?.();
  if (waiting.length === 0) {
    process.stdin.unref();
  }
});
// stdin keeps the process alive only while the CLI waits for a tick.
process.stdin.unref();

timers.setTimeout = (<T>(_delay?: number, value?: T) =>
  new Promise<T>((resolve) => {
    process.stdin.ref();
    waiting.push(() => resolve(value as T));
  }));
// The SDK imports `setTimeout` from node:timers/promises by name: make that binding see the change.
syncBuiltinESMExports();
