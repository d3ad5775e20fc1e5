import type { Middleware } from 'koa';
import type { z } from 'zod';
import { validationFailed, type ValidationIssue } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';

/** Turns zod's issues into the envelope's `issues: [{path, message}]`, one per unknown key too. */
const toValidationIssues = (error: z.ZodError): ValidationIssue[] =>
  error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: base === '' ? key : `${base}.${key}`, message: 'Unknown field.' }));
    }
    return [{ path: base, message: issue.message }];
  });

/** A parsed JSON body, or 422 `validation_failed` naming every issue. */
export const parseInput = <S extends z.ZodType>(schema: S, body: unknown): z.output<S> => {
  // Synchronous: no request schema refines asynchronously, and the async parser costs more per call.
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw validationFailed(toValidationIssues(parsed.error));
  }
  return parsed.data;
};

/** Parses the JSON body with a schema; the handler reads the typed value from ctx.state.input. */
export const validateBody =
  <S extends z.ZodType>(schema: S): Middleware<AppState & { input: z.output<S> }> =>
  async (ctx, next) => {
    ctx.state.input = parseInput(schema, ctx.state.body);
    await next();
  };

/** Parses the query string with a schema; the handler reads the typed value from ctx.state.input. */
export const validateQuery =
  <S extends z.ZodType>(schema: S): Middleware<AppState & { input: z.output<S> }> =>
  async (ctx, next) => {
    const parsed = await schema.safeParseAsync({ ...ctx.query });
    if (!parsed.success) {
      throw validationFailed(toValidationIssues(parsed.error));
    }
    ctx.state.input = parsed.data;
    await next();
  };
