import { checkModelDefinition } from './checkModelDefinition.ts';
import { compileModel } from './compileModel.ts';
import { modelDigest } from './modelDigest.ts';
import type { CompiledModel } from './modelTypes.ts';

// Per thread (each pool thread, and each process's main thread, has its own module instance): a model
// version is compiled once per thread, not once per run or per stream chunk. Bounded, so an account that
// cycles through many versions cannot grow a thread's memory.
const MAX_CACHED_MODELS = 64;
const compiled = new Map<string, CompiledModel>();

/**
 * The compiled model of a definition that travelled (a simulation job's, a stream's), cached by digest.
 * The definition came from a queue or a row, so it is checked again and must be the version its digest
 * names: a job from an older or a forged producer never runs something other than what its result will
 * claim.
 */
export const compiledModelOf = (model: { readonly name: string; readonly digest: string; readonly definition: unknown }): CompiledModel => {
  const key = `${model.name}\u0000${model.digest}`;
  const cached = compiled.get(key);
  if (cached !== undefined) {
    // Most recently used last: the oldest is evicted first.
    compiled.delete(key);
    compiled.set(key, cached);
    return cached;
  }
  const check = checkModelDefinition(model.definition);
  if (!check.valid || check.definition === undefined) {
    throw new RangeError(`model ${model.name} does not check: ${check.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
  }
  if (modelDigest(check.definition) !== model.digest) {
    throw new RangeError(`model ${model.name}: its definition is not ${model.digest}`);
  }
  const made = compileModel(model.name, check.definition);
  compiled.set(key, made);
  if (compiled.size > MAX_CACHED_MODELS) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  return made;
};
