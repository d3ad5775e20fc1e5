import test from 'ava';
import { createBatcher } from '../../shared/async/createBatcher.ts';

/** A flush the test completes by hand, recording the batches it was given. */
const controlledFlush = () => {
  const batches: number[][] = [];
  const finish: Array<() => void> = [];
  const flush = async (items: readonly number[]): Promise<readonly number[]> => {
    batches.push([...items]);
    await new Promise<void>((resolve) => finish.push(resolve));
    return items.map((item) => item * 10);
  };
  return { batches, finish, flush };
};

test('an item arriving while nothing is in flight is flushed at once, alone', async (t) => {
  const { batches, finish, flush } = controlledFlush();
  const write = createBatcher(flush);
  const result = write(1);
  t.deepEqual(batches, [[1]]);
  finish.shift()?.();
  t.is(await result, 10);
});

test('items arriving while a flush is in flight go together in the next one, each getting its own result', async (t) => {
  const { batches, finish, flush } = controlledFlush();
  const write = createBatcher(flush);
  const first = write(1);
  const rest = [write(2), write(3), write(4)];
  t.deepEqual(batches, [[1]]);
  finish.shift()?.();
  t.is(await first, 10);
  t.deepEqual(batches, [[1], [2, 3, 4]]);
  finish.shift()?.();
  t.deepEqual(await Promise.all(rest), [20, 30, 40]);
});

test('a failed flush fails its own batch only', async (t) => {
  let calls = 0;
  const write = createBatcher((items: readonly number[]) => {
    calls += 1;
    return calls === 1 ? Promise.reject(new Error('link lost')) : Promise.resolve(items);
  });
  const failing = write(1);
  const next = write(2);
  await t.throwsAsync(failing, { message: 'link lost' });
  t.is(await next, 2);
});
