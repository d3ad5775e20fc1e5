#!/usr/bin/env node
// `bss`: the command-line client. Runs as TypeScript on Node 24 (type stripping), without a build step:
// `npm run --silent cli -- <command>` in the repository, or `bss <command>` after `npm link`.
import { runCli } from './runCli.ts';

const interrupt = new AbortController();
process.once('SIGINT', () => interrupt.abort());
process.exitCode = await runCli({ argv: process.argv.slice(2), env: process.env, stdout: process.stdout, stderr: process.stderr, signal: interrupt.signal });
