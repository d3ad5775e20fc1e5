import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { call, GALLERY, galleryModel } from './modelFixtures.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

// Every model of docs/models/ is checked, stored and run through the HTTP API, as its page shows it: a run
// with one of its scenario events and the matched counterfactual of that run.
for (const name of GALLERY) {
  test(`the gallery's ${name} validates without issues, is stored, and runs with a scenario and its counterfactual`, async (t) => {
    const me = await buildCaller(app.services.pool, { max_models: 10 });
    const definition = galleryModel(name);
    const validated = await call(app, 'POST', '/v1/models/validate', me.key, { body: definition });
    t.is(validated.status, 200);
    t.deepEqual(validated.body.issues, []);
    t.deepEqual(validated.body.warnings, []);
    t.true(validated.body.valid);
    t.is(validated.body.sample.records.length, 20);

    const put = await call(app, 'PUT', `/v1/models/${name}`, me.key, { body: definition });
    t.is(put.status, 201, put.text);
    const [event] = put.body.catalog.scenario_events as { type: string }[];
    if (event === undefined) {
      t.fail(`${name} has no scenario event`);
      return;
    }
    const scenario = { events: [{ type: event.type, sequence: 1, at_step: 2, duration: 10, intensity: 1 }] };
    const withEvent = await call(app, 'POST', '/v1/simulations', me.key, { body: { model: name, num_interactions: 400, seed: 42, scenario } });
    t.is(withEvent.status, 200, withEvent.text);
    t.is(withEvent.body.data.length, 400);
    const labelled = (withEvent.body.data as { scenario_event: string | null }[]).filter((record) => record.scenario_event === event.type);
    t.true(labelled.length > 0, `${name}: no record carries ${event.type}`);
    const without = await call(app, 'POST', '/v1/simulations', me.key, { body: { model: name, num_interactions: 400, seed: 42 } });
    t.is(without.status, 200);
    // The counterfactual's first record of the event's sequence is the run's, before the window opens.
    t.deepEqual({ ...without.body.data[0], scenario_event: null }, { ...withEvent.body.data[0], scenario_event: null });
    t.true(without.body.data.every((record: { scenario_event: string | null }) => record.scenario_event === null));
  });
}
