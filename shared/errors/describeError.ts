import { SlonikError } from 'slonik';

/**
 * What may be logged about an unexpected error: its class and code. Never the stack, nor a database
 * error's message or properties, which can carry SQL text and bound values.
 */
export const describeError = (error: unknown): { name: string; code?: string; message?: string } => {
  if (!(error instanceof Error)) {
    return { name: typeof error };
  }
  const code = (error as { code?: unknown }).code;
  const described: { name: string; code?: string; message?: string } = { name: error.constructor.name };
  if (typeof code === 'string') {
    described.code = code;
  }
  if (!(error instanceof SlonikError) && !isDatabaseDriverError(error)) {
    described.message = error.message.slice(0, 200);
  }
  return described;
};

const isDatabaseDriverError = (error: Error): boolean => 'severity' in error && 'routine' in error;
