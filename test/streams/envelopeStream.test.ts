import test from 'ava';
import { writeRecordChunks } from '../../shared/engine/writeRecordChunks.ts';
import { engineModels } from '../../shared/engine/engineVersions.ts';
import { PRESET_NAMES, type PresetName } from '../../shared/engine/presetTypes.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';
import { EnvelopeStream } from '../../shared/streams/EnvelopeStream.ts';
import type { StreamInput } from '../../shared/streams/StreamInput.ts';
import { NO_DISORDER } from '../../shared/streams/StreamDisorder.ts';

// docs/streams.md, "The envelope": each record is the one POST /v1/simulations prints for the same inputs
// with order "time", byte for byte, and the envelope is {"position","record","delay_ms","duplicate"}.

const ENGINE = '4.0.0';
const START = Date.parse('2026-01-05T20:00:00.000Z');
const models = engineModels(ENGINE)!;

const inputOf = (preset: PresetName, overrides: Partial<StreamInput> = {}): StreamInput => {
  const model = models[preset];
  // A scenario event in every sequence, so a nullable field prints both a value and null.
  const scenario: Scenario = { events: [{ type: model.scenarioEvents![0]!.type, sequence: 'all', at_step: 3, duration: 4, intensity: 1 }] };
  return {
    preset,
    profile: model.defaultProfile,
    seed: 41,
    numInteractions: 3000,
    serviceVersion: ENGINE,
    scenario,
    startTime: START,
    population: 200,
    speed: 60,
    disorder: NO_DISORDER,
    ...overrides,
  };
};

/** The simulation's JSON `data` array for the stream's records (engine 4, order "time"). */
const simulationJson = (input: StreamInput): string =>
  Buffer.concat(
    [
      ...writeRecordChunks(
        {
          preset: input.preset as PresetName,
          profile: input.profile,
          seed: input.seed,
          numInteractions: input.numInteractions,
          serviceVersion: input.serviceVersion,
          ...(input.scenario === null ? {} : { scenario: input.scenario }),
          startTime: input.startTime,
          order: 'time',
          population: input.population,
        },
        'json',
      ),
    ].map((chunk) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
  ).toString('utf8');

const RECORD = ',"record":';
const DELAY = ',"delay_ms":';
/** The record's text inside an envelope's, cut out without parsing it. */
const recordText = (json: string): string => json.slice(json.indexOf(RECORD) + RECORD.length, json.lastIndexOf(DELAY));

const all = (input: StreamInput): { position: number; dueMs: number; duplicate: boolean; json: string }[] => {
  const events = new EnvelopeStream(input);
  const out = [];
  for (let envelope = events.next(); envelope !== undefined; envelope = events.next()) out.push(envelope);
  return out;
};

for (const preset of PRESET_NAMES) {
  test(`${preset}: without disorder, the envelopes' records are the simulation's JSON records, byte for byte, in order`, (t) => {
    const input = inputOf(preset);
    const envelopes = all(input);
    t.is(envelopes.length, input.numInteractions);
    t.is(`[${envelopes.map((envelope) => recordText(envelope.json)).join(',')}]`, simulationJson(input));
    t.true(envelopes.some((envelope) => envelope.json.includes('"scenario_event":null')));
    t.true(envelopes.some((envelope) => /"scenario_event":"[a-z_]+"/.test(envelope.json)));
    envelopes.forEach((envelope, index) => {
      t.is(envelope.position, index + 1);
      t.is(envelope.json, `{"position":${index + 1},"record":${recordText(envelope.json)},"delay_ms":0,"duplicate":false}`);
    });
  });

  test(`${preset}: with disorder, each record is delivered as the simulation prints it, the copies after their originals, labelled`, (t) => {
    const input = inputOf(preset, { disorder: { late_share: 0.4, max_delay_s: 7200, duplicate_share: 0.2 } });
    const printed = new Map<number, string>();
    for (const text of simulationJson(input).slice(1, -1).split(/,(?=\{"sequence_id")/)) printed.set(Number(/"interaction_id":(\d+)/.exec(text)![1]), text);
    const envelopes = all(input);
    const seen = new Map<number, { position: number; delay: number }>();
    let previousDue = Number.NEGATIVE_INFINITY;
    for (const envelope of envelopes) {
      const parsed = JSON.parse(envelope.json) as { position: number; record: { interaction_id: number; event_time: string }; delay_ms: number; duplicate: boolean };
      t.deepEqual(Object.keys(parsed), ['position', 'record', 'delay_ms', 'duplicate']);
      t.is(parsed.position, envelope.position);
      t.is(parsed.duplicate, envelope.duplicate);
      t.is(recordText(envelope.json), printed.get(parsed.record.interaction_id) ?? 'a record the simulation did not print');
      // Due in delivery order: event_time + delay_ms, scaled by the speed from start_time.
      t.is(envelope.dueMs, (Date.parse(parsed.record.event_time) + parsed.delay_ms - START) / input.speed);
      t.true(envelope.dueMs >= previousDue);
      previousDue = envelope.dueMs;
      const first = seen.get(parsed.record.interaction_id);
      if (envelope.duplicate) {
        t.true(first !== undefined && first.position < envelope.position && first.delay <= parsed.delay_ms);
      } else {
        t.is(first, undefined);
        seen.set(parsed.record.interaction_id, { position: envelope.position, delay: parsed.delay_ms });
      }
    }
    t.is(seen.size, input.numInteractions);
    t.true(envelopes.some((envelope) => envelope.duplicate));
    t.true(envelopes.some((envelope) => !envelope.duplicate && !envelope.json.includes('"delay_ms":0,')));
  });
}

test('moveNext without printing and skipTo reach the same envelopes as next(): a clock and a resume see what a reader gets', (t) => {
  const input = inputOf('finance', { disorder: { late_share: 0.3, max_delay_s: 600, duplicate_share: 0.1 } });
  const expected = all(input);
  const clock = new EnvelopeStream(input);
  const dues: number[] = [];
  while (clock.moveNext()) dues.push(clock.dueMs);
  t.deepEqual(dues, expected.map((envelope) => envelope.dueMs));
  const resumed = new EnvelopeStream(input);
  t.true(resumed.skipTo(1234));
  t.deepEqual(resumed.next(), expected[1234]);
  t.false(resumed.skipTo(expected.length + 1));
});
