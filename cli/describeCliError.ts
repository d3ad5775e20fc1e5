import { BssApiError, BssConnectionError } from '../sdk/index.ts';

/** The lines the CLI prints on stderr for a failure: the API's message and code, and what to check. */
/** A detail the API sent, printed as text whatever its JSON type. */
const printable = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? ''));

export const describeCliError = (error: unknown): string => {
  if (error instanceof BssApiError) {
    const where = [`code ${error.code}`, `HTTP ${error.status}`, ...(error.requestId === undefined ? [] : [`request ${error.requestId}`])].join(', ');
    const lines = [`bss: ${error.message} (${where})`];
    const issues = error.details.issues;
    if (Array.isArray(issues)) {
      for (const issue of issues as Array<{ path?: unknown; message?: unknown }>) {
        lines.push(`  ${printable(issue.path)}: ${printable(issue.message)}`);
      }
    }
    if (error.code === 'authentication_required') {
      lines.push('  set BSS_API_KEY to an API key (bs_live_…)');
    }
    return `${lines.join('\n')}\n`;
  }
  if (error instanceof BssConnectionError) {
    return `bss: ${error.message}${error.kind === 'unreachable' ? ' (check BSS_API_URL)' : ''}\n`;
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return 'bss: interrupted\n';
  }
  return `bss: ${error instanceof Error ? error.message : String(error)}\n`;
};
