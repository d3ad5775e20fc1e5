import { CounterRng } from '../counterRng.ts';
import { eventTimeField } from '../fieldSpec.ts';
import type { Rng } from '../rng.ts';
import type { EngineModel, RunContext, RunTiming, Simulator, SubjectSimulator } from '../simulator.ts';
import type { PresetClock } from './PresetClock.ts';
import { SequenceOrderSimulator } from './SequenceOrderSimulator.ts';
import { SubjectArrivals } from './SubjectArrivals.ts';
import { TimedSubject } from './TimedSubject.ts';
import { TimeOrderSimulator } from './TimeOrderSimulator.ts';

/** 2026-01-01T00:00:00.000Z, the default start_time (docs/decisions.md#event-time). */
const DEFAULT_START_TIME = 1_767_225_600_000;
export const DEFAULT_TIMING: RunTiming = { startTime: DEFAULT_START_TIME, order: 'sequence', population: 100 };

const asSubject = (simulator: Simulator): SubjectSimulator => {
  if (!('seek' in simulator)) throw new Error('engine 4 runs engine-3 simulators that can be positioned at a sequence');
  return simulator as SubjectSimulator;
};

/**
 * An engine-4 model: an engine-3 model whose records carry `event_time` after `interaction_id`, stamped by
 * the preset's clock. The other fields are the engine-3 model's, drawn from the same addressed numbers
 * (the clock has slots of its own), so for the same inputs a sequence's other fields equal engine 3's
 * (but for mobile_app's documented tenth: mobileAppClock.ts). `order` and `population` pick how the
 * sequences are laid out (SequenceOrderSimulator, TimeOrderSimulator).
 */
export function eventTimeModel<M extends EngineModel>(base: M, clock: PresetClock): M {
  const types = (base.scenarioEvents ?? []).map((event) => event.type);
  return {
    ...base,
    timed: true,
    fields: [base.fields[0]!, base.fields[1]!, eventTimeField(), ...base.fields.slice(2)],
    createSimulator(profile: string, rng: Rng, run: RunContext): Simulator {
      const timing = run.timing ?? DEFAULT_TIMING;
      // The clocks' addressed generator, shared by the run's subjects (TimedSubject).
      const clockRng = new CounterRng(run.key);
      const makeSubject = (): TimedSubject => new TimedSubject(asSubject(base.createSimulator(profile, rng, run)), clock.createClock(), clockRng);
      const makeShadow = (): TimedSubject =>
        new TimedSubject(asSubject(base.createSimulator(profile, rng, { key: run.key, scenario: undefined })), clock.createClock(), clockRng);
      const arrivals = new SubjectArrivals(clock, run.key, timing.startTime, run.scenario, types, base.episodeLength, makeShadow);
      const width = base.fields.length + 1;
      return timing.order === 'time' ?
          new TimeOrderSimulator(makeSubject, arrivals, timing.population, width, run.count ?? Number.POSITIVE_INFINITY)
        : new SequenceOrderSimulator(makeSubject(), arrivals, timing.population, width);
    },
  };
}
