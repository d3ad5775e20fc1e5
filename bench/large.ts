// `npm run bench:large`: only the 1,000,000-record rows of `npm run bench`, on a stack of their own.
import os from 'node:os';
import { largeRunRows } from './largeRuns.ts';
import { startBenchStack } from './startBenchStack.ts';

const stack = await startBenchStack();
try {
  const rows = await largeRunRows(stack);
  process.stdout.write(`\n${os.cpus().length} CPUs, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}\n\n${rows.join('\n')}\n`);
} finally {
  await stack.close();
}
