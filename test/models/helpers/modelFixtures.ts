import { generateRecords } from '../../../shared/engine/generateRecords.ts';
import type { Scenario } from '../../../shared/engine/scenario.ts';
import type { SimulationRecord } from '../../../shared/engine/presetTypes.ts';
import { checkModelDefinition, compileModel } from '../../../shared/models/index.ts';
import type { CompiledModel, ModelDefinition } from '../../../shared/models/index.ts';

/** The smallest valid definition; tests override what they are about. */
export function definition(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    description: 'a test model',
    states: ['A', 'B', 'C', 'D'],
    initial: 'A',
    max_steps: 10,
    profiles: { base: { rate: 1 } },
    transitions: {},
    fields: [{ name: 'x', type: 'number', value: 'rate' }],
    ...overrides,
  };
}

/** Checks and compiles a definition, failing loudly with its issues when it is not valid. */
export function compiled(input: Record<string, unknown>, name = 'test_model'): CompiledModel {
  const check = checkModelDefinition(input);
  if (!check.valid) throw new Error(`invalid: ${JSON.stringify(check.issues)}`);
  return compileModel(name, check.definition as ModelDefinition);
}

export function run(model: CompiledModel, numInteractions: number, options: { seed?: number; profile?: string; scenario?: Scenario } = {}): SimulationRecord[] {
  return generateRecords({
    model,
    profile: options.profile ?? model.engine.defaultProfile,
    seed: options.seed ?? 7,
    numInteractions,
    ...(options.scenario === undefined ? {} : { scenario: options.scenario }),
  });
}

/** Records grouped by sequence_id, in order. */
export function sequences(records: readonly SimulationRecord[]): SimulationRecord[][] {
  const bySequence = new Map<number, SimulationRecord[]>();
  for (const r of records) {
    const id = r.sequence_id as number;
    let list = bySequence.get(id);
    if (list === undefined) bySequence.set(id, (list = []));
    list.push(r);
  }
  return [...bySequence.values()];
}

/** The share of values equal to `value`. */
export function share(values: readonly unknown[], value: unknown): number {
  return values.filter((v) => v === value).length / values.length;
}
