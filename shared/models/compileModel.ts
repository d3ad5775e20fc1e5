import type { CompiledModel, ModelDefinition } from './modelTypes.ts';

/** A checked definition compiled once into the engine's model (cache it by digest). */
export function compileModel(name: string, definition: ModelDefinition): CompiledModel {
  void definition;
  throw new Error(`compiling ${name}: not written yet`);
}
