import test from 'ava';
import { checkModelDefinition } from '../../shared/models/index.ts';
import type { ModelIssue } from '../../shared/models/index.ts';
import { definition } from './helpers/modelFixtures.ts';

// docs/models.md#checking: every problem at once, each with its JSON path and,
// in an expression, the character it starts at; messages a person can act on.

function issuesOf(input: unknown): readonly ModelIssue[] {
  const check = checkModelDefinition(input);
  return check.issues;
}

function messageAt(issues: readonly ModelIssue[], path: string): string {
  const found = issues.filter((i) => i.path === path).map((i) => i.message);
  return found.join(' | ');
}

test('a valid definition has no issues and returns itself', (t) => {
  const input = definition();
  const check = checkModelDefinition(input);
  t.true(check.valid);
  t.deepEqual(check.issues, []);
  t.is(check.definition, input as never);
});

test('every problem of a definition is reported at once, each at its path', (t) => {
  const issues = issuesOf(
    definition({
      states: ['Trial', 'Active', 'Active', 'bad name'],
      initial: 'Trail',
      max_steps: 0,
      transitions: { Trial: { Actve: 'convrt + 1' } },
      fields: [{ name: 'x', type: 'text', value: 1 }],
      colour: 'blue',
    }),
  );
  t.deepEqual(
    issues.map((i) => i.path),
    ['colour', 'states[2]', 'states[3]', 'max_steps', 'fields[0].type', 'initial', 'transitions.Trial.Actve', 'transitions.Trial.Actve'],
  );
  t.is(messageAt(issues, 'initial'), "unknown state 'Trail' (did you mean 'Trial'?)");
  t.is(messageAt(issues, 'colour'), "unknown member 'colour'");
  t.is(messageAt(issues, 'states[2]'), "state 'Active' is listed twice");
  t.is(messageAt(issues, 'transitions.Trial.Actve'), "unknown state 'Actve' (did you mean 'Active'?) | unknown name 'convrt' (at character 1)");
  t.regex(messageAt(issues, 'max_steps'), /integer 1 to 100000/);
});

test('expression problems name the character they start at', (t) => {
  const issues = issuesOf(
    definition({
      fields: [
        { name: 'a', type: 'number', value: 'rate + raet' },
        { name: 'b', type: 'number', value: 'normal(1)' },
        { name: 'c', type: 'number', value: 'rate +' },
        { name: 'd', type: 'number', value: 'Math.random()' },
        { name: 'e', type: 'number', value: 'rate = 2' },
        { name: 'f', type: 'number', value: 'fetch(1)' },
        { name: 'g', type: 'number', value: 'constructor' },
        { name: 'h', type: 'number', value: "'text' + 1" },
      ],
    }),
  );
  t.is(messageAt(issues, 'fields[0].value'), "unknown name 'raet' (did you mean 'rate'?) (at character 8)");
  t.is(messageAt(issues, 'fields[1].value'), 'normal takes 2 arguments, not 1: normal(mean, sd) (at character 1)');
  t.is(messageAt(issues, 'fields[2].value'), 'the expression ends where a value is expected (at character 7)');
  t.is(messageAt(issues, 'fields[3].value'), "'.' is not part of the language: there is no property access (at character 5)");
  t.is(messageAt(issues, 'fields[4].value'), "'=' is not part of the language (there is no assignment); to compare, write '==' (at character 6)");
  t.is(messageAt(issues, 'fields[5].value'), 'unknown function \'fetch\' (at character 1)');
  t.is(messageAt(issues, 'fields[6].value'), "unknown name 'constructor' (at character 1)");
  t.is(messageAt(issues, 'fields[7].value'), "'+' works on numbers; strings cannot be joined or computed with (at character 1)");
});

test('type errors: a string where a number is needed and the reverse, conditions, comparisons', (t) => {
  const issues = issuesOf(
    definition({
      fields: [
        { name: 's', type: 'string', value: 'rate' },
        { name: 'n', type: 'number', value: "state == 'A' ? 'yes' : 'no'" },
        { name: 'c', type: 'number', value: 'rate ? 1 : 2' },
        { name: 'l', type: 'number', value: "state < 'B' ? 1 : 0" },
        { name: 'm', type: 'number', value: "rate == 'x' ? 1 : 0" },
        { name: 'k', type: 'string', value: 3 },
        { name: 'q', type: 'number', value: 'rate > 1' },
      ],
    }),
  );
  t.is(messageAt(issues, 'fields[0].value'), "the value of field 's' must be a string, not a number (a string field's value is a string expression, like 'text')");
  t.is(messageAt(issues, 'fields[1].value'), "the value of field 'n' must be a number, not a string");
  t.is(messageAt(issues, 'fields[2].value'), 'the condition before ? must be a condition (true or false), not a number (compare it, like x > 0) (at character 1)');
  t.is(messageAt(issues, 'fields[3].value'), "strings compare only with == and !=, not '<' (at character 1)");
  t.is(messageAt(issues, 'fields[4].value'), "'==' compares values of one type, not a number and a string (at character 1)");
  t.is(messageAt(issues, 'fields[5].value'), "must be a string expression, like 'text' in single quotes, not a number");
  t.is(messageAt(issues, 'fields[6].value'), "the value of field 'q' must be a number, not a condition (true or false) (write cond ? 1 : 0)");
});

test('a string compared with state or prev_state must be one of states; with event, one of the event types', (t) => {
  const issues = issuesOf(
    definition({
      events: [{ type: 'outage', description: 'down', enter: 'B' }],
      fields: [
        { name: 'a', type: 'number', value: "state == 'Bb' ? 1 : 0" },
        { name: 'b', type: 'number', value: "'C' != prev_state ? 1 : 0" },
        { name: 'c', type: 'number', value: "prev_state == (step > 1 ? 'A' : 'Z') ? 1 : 0" },
        { name: 'd', type: 'number', value: "event == 'outtage' ? 1 : 0" },
      ],
    }),
  );
  t.is(messageAt(issues, 'fields[0].value'), "unknown state 'Bb' (did you mean 'B'?) (at character 10)");
  t.is(messageAt(issues, 'fields[1].value'), '');
  t.is(messageAt(issues, 'fields[2].value'), "unknown state 'Z' (at character 15)");
  t.is(messageAt(issues, 'fields[3].value'), "unknown event type 'outtage' (did you mean 'outage'?) (at character 10)");
});

test('identifiers are allowed per place: earlier fields only in a value, earlier variables only in an initial, no state in an initial weight', (t) => {
  const issues = issuesOf(
    definition({
      initial: { A: "state == 'A' ? 1 : 0", B: 'v' },
      variables: [
        { name: 'v', initial: 'w', next: 'v + w' },
        { name: 'w', initial: 'v + 1', next: 'x' },
      ],
      transitions: { A: { B: 'y' } },
      fields: [
        { name: 'x', type: 'number', value: 'y' },
        { name: 'y', type: 'number', value: 'x + v' },
      ],
      events: [{ type: 'e', description: 'an event', set: { rate: 'v' } }],
    }),
  );
  t.is(messageAt(issues, 'initial.A'), "'state' cannot be used in an initial weight: the state is not drawn yet there (at character 1)");
  t.is(messageAt(issues, 'initial.B'), "variable 'v' cannot be used in an initial weight: variables take their initial values after the first state is drawn (at character 1)");
  t.is(messageAt(issues, 'variables[0].initial'), "variable 'w' cannot be used in the initial of variable 'v': at step 1, an initial may use only the variables listed before it (at character 1)");
  t.is(messageAt(issues, 'variables[0].next'), '');
  t.is(messageAt(issues, 'variables[1].initial'), '');
  t.is(messageAt(issues, 'variables[1].next'), "field 'x' cannot be used in the next of variable 'w': only a field's value reads other fields (at character 1)");
  t.is(messageAt(issues, 'transitions.A.B'), "field 'y' cannot be used in a transition weight: only a field's value reads other fields (at character 1)");
  t.is(messageAt(issues, 'fields[0].value'), "field 'y' is not listed before this one: a value may use only the fields listed earlier (at character 1)");
  t.is(messageAt(issues, 'fields[1].value'), '');
  t.is(messageAt(issues, 'events[0].set.rate'), "variable 'v' cannot be used in a set value: a set value is computed before the record's variables (at character 1)");
});

test('names: patterns, reserved words, one name per identifier; profiles with the same params; default_profile', (t) => {
  const issues = issuesOf(
    definition({
      profiles: { base: { rate: 1, __proto__x: 2 }, Other: { rate: 1 }, more: { rate: 2, extra: 3 }, less: {} },
      default_profile: 'bsae',
      variables: [{ name: 'rate', initial: 0, next: 0 }],
      fields: [
        { name: 'step', type: 'number', value: 1 },
        { name: 'normal', type: 'number', value: 1 },
        { name: 'event_time', type: 'number', value: 1 },
        { name: 'ok', type: 'number', value: 1, decimals: 13 },
        { name: 'label', type: 'string', value: "'x'", decimals: 2 },
      ],
    }),
  );
  t.regex(messageAt(issues, 'profiles.base.__proto__x'), /must match/);
  t.regex(messageAt(issues, 'profiles.Other'), /profile 'Other' must match \^\[a-z\]/);
  t.is(messageAt(issues, 'profiles.more.extra'), "param 'extra' is not in profile 'base'; every profile has the same params");
  t.is(messageAt(issues, 'profiles.less'), "profile 'less' lacks param 'rate' that profile 'base' has; every profile has the same params");
  t.is(messageAt(issues, 'default_profile'), 'unknown profile "bsae" (did you mean \'base\'?); it names one of profiles');
  t.is(messageAt(issues, 'variables[0].name'), "variable 'rate' is already the name of param at profiles.base.rate; params, variables and fields need distinct names");
  for (const i of [0, 1, 2]) t.regex(messageAt(issues, `fields[${i}].name`), /reserves/);
  t.regex(messageAt(issues, 'fields[3].decimals'), /integer 0 to 12/);
  t.is(messageAt(issues, 'fields[4].decimals'), 'rounds a number field; a string field has no decimals');
});

test('bounds: counts of states, fields, events; expression length; the definition as a whole', (t) => {
  const issues = issuesOf(
    definition({
      description: '',
      states: Array.from({ length: 65 }, (_, i) => `S${i}`),
      initial: 'S0',
      fields: [],
      events: Array.from({ length: 17 }, (_, i) => ({ type: `e${i}`, description: 'e', enter: 'S1' })),
      transitions: { S0: { S1: 'x'.repeat(1001) } },
      clock: { step_seconds: "'soon'", later: 1 },
    }),
  );
  t.is(messageAt(issues, 'description'), 'must be 1 to 500 characters long, not 0');
  t.is(messageAt(issues, 'states'), 'must hold 1 to 64 states, not 65');
  t.is(messageAt(issues, 'fields'), 'must hold 1 to 64 fields, not 0');
  t.is(messageAt(issues, 'events'), 'holds at most 16 event types, not 17');
  t.is(messageAt(issues, 'transitions.S0.S1'), 'an expression is at most 1000 characters, not 1001');
  t.is(messageAt(issues, 'clock.later'), "unknown member 'later'");
  t.is(messageAt(issues, 'clock.step_seconds'), 'a clock expression must be a number, not a string');
  t.deepEqual(issuesOf([]), [{ path: '', message: 'a model definition is a JSON object, not an array' }]);
  t.regex(issuesOf(definition({ description: 'x'.repeat(70_000) }))[0]!.message, /at most 65536 bytes/);
});

test('warnings: unreachable states, unreachable terminals, unused params, events that change nothing', (t) => {
  const check = checkModelDefinition(
    definition({
      profiles: { base: { rate: 1, unused: 2 } },
      transitions: { A: { B: 'rate / 2', C: 0 } },
      terminal: ['D'],
      events: [
        { type: 'label_only', description: 'marks records' },
        { type: 'push', description: 'into C', enter: 'C' },
      ],
    }),
  );
  t.true(check.valid);
  t.deepEqual(check.warnings, [
    { path: 'events[0]', message: "event type 'label_only' sets no param and enters no state: only expressions that read 'event' see it" },
    { path: 'terminal[0]', message: "terminal state 'D' can never be reached from initial, so no sequence ends there" },
    { path: 'profiles.base.unused', message: "param 'unused' is never used in an expression" },
  ]);
  const unreachable = checkModelDefinition(definition({ transitions: { A: { B: 1 } } }));
  t.deepEqual(
    unreachable.warnings.map((w) => w.message),
    ["state 'C' can never be reached from initial: no transition with a weight leads to it", "state 'D' can never be reached from initial: no transition with a weight leads to it"],
  );
});

test('choice takes a list of strings and a list of weights of the same length; lists appear nowhere else', (t) => {
  const issues = issuesOf(
    definition({
      fields: [
        { name: 'a', type: 'string', value: "choice(['x', 'y'], [1])" },
        { name: 'b', type: 'string', value: "choice('x', [1])" },
        { name: 'c', type: 'number', value: 'max([1, 2], 3)' },
        { name: 'd', type: 'string', value: "choice(['x', 1], [1, 'w'])" },
      ],
    }),
  );
  t.is(messageAt(issues, 'fields[0].value'), 'choice has 2 values but 1 weights: give one weight per value (at character 20)');
  t.is(messageAt(issues, 'fields[1].value'), "choice's first argument is a non-empty list of strings, like ['a', 'b'] (at character 8)");
  t.is(messageAt(issues, 'fields[2].value'), 'a list [...] may appear only as an argument of choice (at character 5)');
  t.is(messageAt(issues, 'fields[3].value'), 'a choice must be a string, not a number (at character 14) | a choice weight must be a number, not a string (at character 22)');
});
