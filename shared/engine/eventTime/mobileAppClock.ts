import type { CounterRng } from '../counterRng.ts';
import { APP_CLOSE, CRASH } from '../models/v2/mobileApp.ts';
import { type PresetClock, type SequenceClock } from './PresetClock.ts';
import * as clockConstants from './PresetClock.ts';
import { afterActivity } from './afterActivity.ts';

// Module-level copies (a loader that turns imports into property reads pays them once).
const { SLOT_ARRIVAL, SLOT_CLOCK_A } = clockConstants;

// Slots of a mobile_app record (engine-3 layout): 2 state, 3 event, 4 session_duration_s in tenths.
const STATE_SLOT = 2;
const EVENT_SLOT = 3;
const DURATION_SLOT = 4;
// The gap before a session, in activity hours (afterActivity.ts), is log-normal with a median by the
// lifecycle state the session opens in and a log-sd of 1.3, so the mean gap is 2.3 times the median and a
// few gaps last weeks (heavy-tailed inter-session times, as app-usage traces show: Falaki et al. 2010,
// Jones et al. 2015). States in the engine's order: Onboarding, Engaged, Idle, AtRisk, Churned (the
// uninstall).
const GAP_MEDIAN_HOURS: readonly number[] = [4, 10, 36, 96, 72];
const GAP_LOG_SD = 1.3;
const GAP_LOG_MEDIAN = GAP_MEDIAN_HOURS.map(Math.log);
// The first users install over the first week's activity; a churned user's place is taken by a new
// install after an exponential wait with a mean of 12 activity hours.
const INITIAL_ACTIVITY_HOURS = 7 * 24;
const MEAN_REPLACEMENT_HOURS = 12;

class MobileAppClock implements SequenceClock {
  private arrival = 0;
  private previous = 0;
  /** When the current session opened. */
  private opened = 0;
  private previousTenths = 0;
  /** The previous record ended its session (a close or a crash): this one opens the next. */
  private sessionOver = false;

  begin(arrival: number): void {
    this.arrival = arrival;
  }

  stamp(rng: CounterRng, values: Float64Array, step: number): number {
    let time: number;
    if (step === 1) {
      // The install's first open happens on arrival.
      this.opened = this.arrival;
      this.previousTenths = 0;
      time = this.opened;
    } else if (this.sessionOver) {
      const state = values[STATE_SLOT]!;
      const hours = Math.exp(GAP_LOG_MEDIAN[state]! + GAP_LOG_SD * rng.normal(SLOT_CLOCK_A));
      this.opened = Math.max(this.previous + 1, afterActivity(this.previous, hours));
      this.previousTenths = 0;
      time = this.opened;
    } else {
      // event_time - the session's open = session_duration_s. Two events of a session 0.05 s apart would
      // print the same tenth and so share an instant: the later one is written 0.1 s later (the only
      // field engine 4 prints differently from engine 3, on about 0.2% of in-session events).
      let tenths = values[DURATION_SLOT]!;
      if (tenths <= this.previousTenths) {
        tenths = this.previousTenths + 1;
        values[DURATION_SLOT] = tenths;
      }
      this.previousTenths = tenths;
      time = this.opened + tenths * 100;
    }
    const event = values[EVENT_SLOT]!;
    this.sessionOver = event === CRASH || event === APP_CLOSE;
    this.previous = time;
    return time;
  }
}

export const mobileAppClock: PresetClock = {
  initialArrival: (rng, startTime) => afterActivity(startTime, rng.uniform(SLOT_ARRIVAL) * INITIAL_ACTIVITY_HOURS),
  nextArrival: (rng, freedAt) => afterActivity(freedAt, rng.exponential(SLOT_ARRIVAL, MEAN_REPLACEMENT_HOURS)),
  createClock: () => new MobileAppClock(),
};

