import type { BssClient } from '../sdk/index.ts';

/** What a command needs from the process, passed in so that every command reads it the same way. */
export interface CliContext {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** The SDK client, configured from BSS_API_URL and BSS_API_KEY. */
  readonly client: () => BssClient;
  /** Aborted on Ctrl-C, so a long run stops and leaves no partial file. */
  readonly signal: AbortSignal;
}

/** `--json` prints the API's JSON for scripts; otherwise a table for people. */
export const printJson = (context: CliContext, value: unknown): void => {
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
