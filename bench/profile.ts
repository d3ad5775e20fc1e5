// `npm run bench:profile [-- DIR]`: the API and the worker under `node --cpu-prof` while 32 connections send
// POST /v1/simulations at n = 1 and then n = 1000, then (BENCH_PROFILE_LARGE=1) one streamed 1,000,000-record
// run in each format; prints each process's top frames by self time and keeps the .cpuprofile files in DIR
// (open them in Chrome DevTools or speedscope).
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './loadTest.ts';
import { simulationLoad } from './simulationLoad.ts';
import { startBenchStack } from './startBenchStack.ts';
import { summarizeProfile } from './summarizeProfile.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const directory = path.resolve(process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), 'bss-profile-')));
const stack = await startBenchStack({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${directory}`] });
const requests: Record<string, number> = {};
try {
  const api = (n: number) => ({ ...simulationLoad(stack, n), connections: 32 });
  await runLoad({ ...api(1), duration: 2 });
  for (const n of [1, 1000]) {
    const result = await runLoad({ ...api(n), duration: SECONDS });
    requests[`n=${n}`] = result.requests;
    process.stdout.write(`n=${n}: ${result.rps.toFixed(0)} req/s, ${result.failures} failed\n`);
  }
  if (process.env.BENCH_PROFILE_LARGE === '1') {
    for (const accept of ['application/json', 'application/x-ndjson', 'text/csv', 'application/vnd.apache.parquet']) {
      const response = await fetch(`${stack.apiUrl}/v1/simulations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.key}`, 'content-type': 'application/json', accept },
        body: JSON.stringify({ preset: 'finance', num_interactions: 1_000_000, seed: 42 }),
      });
      const bytes = (await response.arrayBuffer()).byteLength;
      process.stdout.write(`1,000,000 records as ${accept}: ${response.status}, ${bytes} bytes\n`);
    }
  }
} finally {
  await stack.close();
}
const pidName = new Map<number, string>([[stack.pids.api, 'API'], ...stack.pids.workers.map((pid, index): [number, string] => [pid, `worker ${index + 1}`])]);
for (const file of readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'))) {
  // Node names the file CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile; thread 0 is the main thread.
  const pid = Number(file.split('.')[3]);
  const { busyMs, idleMs, frames } = summarizeProfile(path.join(directory, file));
  process.stdout.write(`\n### ${pidName.get(pid) ?? `pid ${pid}`} (${file}): busy ${busyMs.toFixed(0)} ms, idle ${idleMs.toFixed(0)} ms\n\n`);
  process.stdout.write('| self ms | share | frame |\n| ---: | ---: | --- |\n');
  for (const frame of frames) {
    process.stdout.write(`| ${frame.selfMs.toFixed(0)} | ${(frame.share * 100).toFixed(1)}% | ${frame.frame.replaceAll('|', '\\|')} |\n`);
  }
}
process.stdout.write(`\nprofiles in ${directory}; requests ${JSON.stringify(requests)}\n`);
