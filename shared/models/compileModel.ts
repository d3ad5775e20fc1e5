import { commonFields, enumField, type FieldSpec, scenarioEventField } from '../engine/fieldSpec.ts';
import type { EngineModel, RunContext } from '../engine/simulator.ts';
import { analyseModel } from './analyseModel.ts';
import { type CompileContext, ExpressionCompiler, type NumberCode, type StringCode } from './compileExpression.ts';
import { modelDigest } from './modelDigest.ts';
import { type ModelProgram, ModelSimulator, WRITE_INTEGER, WRITE_NUMBER, WRITE_STRING } from './ModelSimulator.ts';
import type { CompiledModel, ModelDefinition } from './modelTypes.ts';
import { SLOTS_PER_SITE } from './randomDraws.ts';

export interface CompileOptions {
  /** Count every expression node evaluated (ModelSimulator.evaluatedNodes): the linearity test's meter. */
  readonly countNodes?: boolean;
}

/**
 * A definition compiled once into the engine's model (cache it by digest): checked again here (a stored
 * definition was checked when written; this is the engine's own guard), every expression turned into
 * closures over slots, and a simulator factory the engine runs like a preset's.
 */
export function compileModel(name: string, definition: ModelDefinition, options: CompileOptions = {}): CompiledModel {
  const { analysis, issues } = analyseModel(definition);
  if (analysis === undefined) throw new RangeError(`model ${name} is not valid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  const countNodes = options.countNodes === true;

  // The string table: states first (a state's id is its index), then '' and the event types, then literals.
  const strings: string[] = [...analysis.states];
  const ids = new Map<string, number>(strings.map((s, i) => [s, i]));
  const stringId = (value: string): number => {
    let id = ids.get(value);
    if (id === undefined) {
      id = strings.length;
      strings.push(value);
      ids.set(value, id);
    }
    return id;
  };
  const emptyStringId = stringId('');
  const eventStringIds = Int32Array.from(analysis.events, (e) => stringId(e.type));
  let sites = 0;
  const context: CompileContext = {
    params: new Map(analysis.params.map((p, i) => [p, i])),
    variables: new Map(analysis.variables.map((v, i) => [v.name, i])),
    fields: new Map(analysis.fields.map((f, i) => [f.name, i])),
    stringId,
    // Slot 0 of a step is its state draw; each random call site owns SLOTS_PER_SITE slots after it.
    nextSite: () => 1 + SLOTS_PER_SITE * sites++,
    countNodes,
    nodes: 0,
  };
  const compiler = new ExpressionCompiler(context);

  const initialTargets = typeof analysis.initial === 'number' ? new Int32Array(0) : Int32Array.from(analysis.initial, ([s]) => s);
  const initialWeights = typeof analysis.initial === 'number' ? [] : analysis.initial.map(([, w]) => compiler.number(w));
  const transitionTargets = analysis.transitions.map((targets) => Int32Array.from(targets, ([s]) => s));
  const transitionWeights = analysis.transitions.map((targets) => targets.map(([, w]) => compiler.number(w)));
  const variableInitials = analysis.variables.map((v) => compiler.number(v.initial));
  const variableNexts = analysis.variables.map((v) => compiler.number(v.next));
  const fieldNumbers: NumberCode[] = [];
  const fieldStrings: StringCode[] = [];
  const none: NumberCode = () => Number.NaN;
  const noString: StringCode = () => emptyStringId;
  for (const field of analysis.fields) {
    fieldNumbers.push(field.type === 'string' ? none : compiler.number(field.value));
    fieldStrings.push(field.type === 'string' ? compiler.string(field.value) : noString);
  }
  const eventSetParams = analysis.events.map((e) => Int32Array.from(e.set, ([p]) => p));
  const eventSetValues = analysis.events.map((e) => e.set.map(([, v]) => compiler.number(v)));
  const clock =
    analysis.clock === undefined ? undefined : { stepSeconds: compiler.number(analysis.clock.stepSeconds), startOffsetSeconds: compiler.number(analysis.clock.startOffsetSeconds) };
  // After every expression is compiled the string table is complete: map each string field's ids to its values.
  const fieldStringIndex = analysis.fields.map((field) => {
    const index = new Int32Array(strings.length).fill(-1);
    field.values.forEach((value, i) => {
      index[stringId(value)] = i;
    });
    return index;
  });
  const scenarioEvents = analysis.events.map((e) => ({ type: e.type, description: e.description, effect: e.effect }));
  const program: ModelProgram = {
    stateCount: analysis.states.length,
    paramCount: analysis.params.length,
    maxSteps: definition.max_steps,
    initialState: typeof analysis.initial === 'number' ? analysis.initial : -1,
    initialTargets,
    initialWeights,
    transitionTargets,
    transitionWeights,
    terminal: Uint8Array.from(analysis.states, (_, s) => (analysis.terminal.has(s) ? 1 : 0)),
    variableInitials,
    variableNexts,
    fieldWrites: Int32Array.from(analysis.fields, (f) => (f.type === 'integer' ? WRITE_INTEGER : f.type === 'number' ? WRITE_NUMBER : WRITE_STRING)),
    fieldDecimals: Int32Array.from(analysis.fields, (f) => f.decimals ?? -1),
    fieldNumbers,
    fieldStrings,
    fieldStringIndex,
    eventSetParams,
    eventSetValues,
    eventEnter: Int32Array.from(analysis.events, (e) => e.enter ?? -1),
    eventStringIds,
    emptyStringId,
    events: scenarioEvents,
    clock,
  };

  const fields: FieldSpec[] = [
    ...commonFields(analysis.states),
    ...analysis.fields.map((f): FieldSpec => {
      const description = f.description === '' ? `${f.type} field of model ${name}` : f.description;
      if (f.type === 'string') return enumField(f.name, f.values, description);
      return { name: f.name, kind: f.type === 'integer' ? 'integer' : 'float', decimals: f.decimals ?? 0, values: [], description, nullable: true };
    }),
    scenarioEventField(scenarioEvents.map((e) => e.type)),
  ];
  const profiles = analysis.profiles;
  const variableCount = analysis.variables.length;
  const engine: EngineModel = {
    name,
    description: definition.description,
    aliases: [],
    defaultProfile: analysis.defaultProfile,
    profiles,
    states: analysis.states,
    transitions: Object.fromEntries(
      analysis.states.map((s, i) => [s, analysis.terminal.has(i) ? [] : [...new Set([...analysis.transitions[i]!.map(([t]) => analysis.states[t]!), s])].sort((a, b) => analysis.states.indexOf(a) - analysis.states.indexOf(b))]),
    ),
    startStates: Object.fromEntries(profiles.map((p) => [p, analysis.states[typeof analysis.initial === 'number' ? analysis.initial : (analysis.initial[0]?.[0] ?? 0)]!])),
    episodeLength: definition.max_steps,
    fields,
    scenarioEvents,
    createSimulator: (profile: string, _rng, run: RunContext) => {
      const values = analysis.profileValues.get(profile);
      if (values === undefined) throw new RangeError(`unknown profile for ${name}: ${profile}`);
      return new ModelSimulator(program, Float64Array.from(values), run, variableCount);
    },
  };
  return { name, digest: modelDigest(definition), definition, engine, nodeCount: context.nodes };
}
