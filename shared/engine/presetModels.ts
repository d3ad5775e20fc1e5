import { education } from './models/education.ts';
import { finance } from './models/finance.ts';
import { healthcare } from './models/healthcare.ts';
import { mobileApp } from './models/mobileApp.ts';
import { finance as finance2 } from './models/v2/finance.ts';
import { healthcare as healthcare2 } from './models/v2/healthcare.ts';
import { mobileApp as mobileApp2 } from './models/v2/mobileApp.ts';
import { education as education3 } from './models/v3/education.ts';
import { finance as finance3 } from './models/v3/finance.ts';
import { healthcare as healthcare3 } from './models/v3/healthcare.ts';
import { mobileApp as mobileApp3 } from './models/v3/mobileApp.ts';
import { educationClock } from './eventTime/educationClock.ts';
import { eventTimeModel } from './eventTime/eventTimeModel.ts';
import { financeClock } from './eventTime/financeClock.ts';
import { healthcareClock } from './eventTime/healthcareClock.ts';
import { mobileAppClock } from './eventTime/mobileAppClock.ts';
import type { PresetName } from './presetTypes.ts';
import { SCENARIO_EVENT_TYPES } from './scenario.ts';
import type { PresetModel } from './simulator.ts';

export type PresetModels = Readonly<Record<PresetName, PresetModel>>;

/**
 * Every engine version the service ships, newest first, with each preset's model. A version's models
 * never change once released (test/engine/goldenDigests.test.ts): a change of output is a new version,
 * and the old one stays here so that a seed stays valid forever (docs/api.md#engine-versions).
 */
export const ENGINE_MODELS: readonly { readonly version: string; readonly models: PresetModels }[] = [
  // Engine 4: engine 3's records with event_time, each preset's clock (eventTime/), time-ordered runs.
  {
    version: '4.0.0',
    models: {
      education: eventTimeModel(education3, educationClock),
      finance: eventTimeModel(finance3, financeClock),
      healthcare: eventTimeModel(healthcare3, healthcareClock),
      mobile_app: eventTimeModel(mobileApp3, mobileAppClock),
    },
  },
  // Engine 3: randomness keyed by subject and step, scenario events, the scenario_event field.
  { version: '3.0.0', models: { education: education3, finance: finance3, healthcare: healthcare3, mobile_app: mobileApp3 } },
  // Engine 1's education model already holds every education fact of docs/decisions.md#fidelity: engine 2
  // serves the same model, so both engines print the same education records.
  { version: '2.0.0', models: { education, finance: finance2, healthcare: healthcare2, mobile_app: mobileApp2 } },
  { version: '1.0.0', models: { education, finance, healthcare, mobile_app: mobileApp } },
];

// Request validation reads each preset's event types from SCENARIO_EVENT_TYPES, the catalog from the
// models: one list, so a model that plays other types than the API accepts fails at load.
for (const { version, models } of ENGINE_MODELS) {
  for (const [name, model] of Object.entries(models) as [PresetName, PresetModel][]) {
    const types = model.scenarioEvents?.map((e) => e.type);
    if (types !== undefined && types.join() !== SCENARIO_EVENT_TYPES[name].join()) {
      throw new Error(`engine ${version} ${name} plays ${types.join()}, not SCENARIO_EVENT_TYPES`);
    }
  }
}

/** The newest engine's models: the source of the catalog. */
export const presetModels: PresetModels = ENGINE_MODELS[0]!.models;
