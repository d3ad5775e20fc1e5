import { clamp } from '../../clamp.ts';
import { commonFields, decimalField, integerField } from '../../fieldSpec.ts';
import { MarkovChain } from '../../markovChain.ts';
import type { TransitionRows } from '../../markovChain.ts';
import type { Rng } from '../../rng.ts';
import { SequenceCounter } from '../../sequenceCounter.ts';
import type { PresetModel, Simulator } from '../../simulator.ts';

// One interaction is one set of vital signs taken on a nursing round; a sequence is one patient's episode
// of care, from admission until Discharged or EPISODE_ROUNDS rounds.
export const STATES = ['Stable', 'Elevated', 'Critical', 'Recovering', 'Discharged'];
export const CRITICAL = 2;
export const DISCHARGED = 4;
export const EPISODE_ROUNDS = 120;

// Patients deteriorate and improve one step at a time; discharge only from Stable or Recovering.
const TRANSITIONS: Readonly<Record<string, readonly string[]>> = {
  Stable: ['Stable', 'Elevated', 'Discharged'],
  Elevated: ['Elevated', 'Stable', 'Critical'],
  Critical: ['Critical', 'Elevated', 'Recovering'],
  Recovering: ['Recovering', 'Stable', 'Elevated', 'Discharged'],
  Discharged: [],
};

// Typical vitals per state (Stable, Elevated, Critical, Recovering, Discharged). Critical is septic-shock
// like: tachycardic, hypotensive, febrile and desaturating.
export const HEART_RATE = [74, 96, 122, 84, 72];
export const SYSTOLIC = [122, 142, 96, 126, 120];
export const DIASTOLIC = [78, 90, 58, 80, 76];
export const SPO2 = [97.6, 95.6, 90.5, 96.6, 97.8];
export const TEMPERATURE = [36.8, 37.7, 38.7, 37.1, 36.7];
// Sicker patients' readings swing more from round to round.
export const NOISE = [1, 1.3, 1.5, 1.15, 0.8];
// Vitals move together: one shared physiological-stress shock per round raises heart rate and temperature
// and lowers saturation and pressure together (as in sepsis or pain), beside each vital's own noise.
export const SHARED_HEART_RATE = 3;
export const SHARED_SYSTOLIC = -2;
export const SHARED_SPO2 = -0.35;
export const SHARED_TEMPERATURE = 0.08;
// Vitals drift toward the state's values rather than jumping, as real readings do between rounds.
export const PULL = 0.5;

// Safe ranges (inclusive); a reading outside any of them raises `alert`, as early-warning scores do.
const SAFE_HEART_RATE = [50, 120];
const SAFE_SYSTOLIC = [90, 180];
const SAFE_DIASTOLIC = [50, 110];
// SpO2 and temperature are judged in tenths, the precision they are published with.
const SAFE_SPO2_MIN_TENTHS = 920;
const SAFE_TEMPERATURE_TENTHS = [355, 385];

/** 1 when any published reading (SpO2 and temperature in tenths) is outside its safe range, else 0. */
export function outsideSafeRange(heartRate: number, systolic: number, diastolic: number, spo2Tenths: number, temperatureTenths: number): number {
  return heartRate < SAFE_HEART_RATE[0]! ||
    heartRate > SAFE_HEART_RATE[1]! ||
    systolic < SAFE_SYSTOLIC[0]! ||
    systolic > SAFE_SYSTOLIC[1]! ||
    diastolic < SAFE_DIASTOLIC[0]! ||
    diastolic > SAFE_DIASTOLIC[1]! ||
    spo2Tenths < SAFE_SPO2_MIN_TENTHS ||
    temperatureTenths < SAFE_TEMPERATURE_TENTHS[0]! ||
    temperatureTenths > SAFE_TEMPERATURE_TENTHS[1]!
    ? 1
    : 0;
}

export interface HealthcareProfile {
  readonly startState: number;
  /** Shifts of the patient's baseline vitals from the typical values. */
  readonly heartRateShift: number;
  readonly systolicShift: number;
  readonly spo2Shift: number;
  /** Probability that the round's medication is taken (administered or self-reported). */
  readonly adherence: number;
  readonly chain: MarkovChain;
}

function profile(
  startState: string,
  shifts: { heartRate: number; systolic: number; spo2: number },
  adherence: number,
  rows: TransitionRows,
): HealthcareProfile {
  return {
    startState: STATES.indexOf(startState),
    heartRateShift: shifts.heartRate,
    systolicShift: shifts.systolic,
    spo2Shift: shifts.spo2,
    adherence,
    chain: new MarkovChain(STATES, TRANSITIONS, rows),
  };
}

export const PROFILES: Readonly<Record<string, HealthcareProfile>> = {
  // Clinic follow-ups: mostly well, short episodes, rare escalations.
  stable_outpatient: profile('Stable', { heartRate: 0, systolic: 0, spo2: 0 }, 0.82, {
    Stable: { Stable: 0.88, Elevated: 0.04, Discharged: 0.08 },
    Elevated: { Elevated: 0.55, Stable: 0.4, Critical: 0.05 },
    Critical: { Critical: 0.6, Elevated: 0.25, Recovering: 0.15 },
    Recovering: { Recovering: 0.6, Stable: 0.3, Elevated: 0.05, Discharged: 0.05 },
  }),
  // Hypertension / COPD-like: higher pressure, lower saturation, frequent flare-ups, long follow-up.
  chronic_condition: profile('Stable', { heartRate: 4, systolic: 12, spo2: -1 }, 0.7, {
    Stable: { Stable: 0.85, Elevated: 0.13, Discharged: 0.02 },
    Elevated: { Elevated: 0.7, Stable: 0.24, Critical: 0.06 },
    Critical: { Critical: 0.7, Elevated: 0.15, Recovering: 0.15 },
    Recovering: { Recovering: 0.75, Stable: 0.15, Elevated: 0.08, Discharged: 0.02 },
  }),
  // Admitted after surgery: recovery first, with some complications that escalate.
  post_operative: profile('Recovering', { heartRate: 3, systolic: 0, spo2: 0 }, 0.93, {
    Stable: { Stable: 0.85, Elevated: 0.05, Discharged: 0.1 },
    Elevated: { Elevated: 0.6, Stable: 0.25, Critical: 0.15 },
    Critical: { Critical: 0.8, Elevated: 0.1, Recovering: 0.1 },
    Recovering: { Recovering: 0.82, Stable: 0.1, Elevated: 0.06, Discharged: 0.02 },
  }),
  // Intensive care: admitted Critical, long critical spells and relapses from Elevated.
  critical_care: profile('Critical', { heartRate: 5, systolic: -4, spo2: -0.5 }, 0.97, {
    Stable: { Stable: 0.85, Elevated: 0.1, Discharged: 0.05 },
    Elevated: { Elevated: 0.65, Stable: 0.05, Critical: 0.3 },
    Critical: { Critical: 0.93, Elevated: 0.02, Recovering: 0.05 },
    Recovering: { Recovering: 0.8, Stable: 0.08, Elevated: 0.12 },
  }),
};

class HealthcareSimulator implements Simulator {
  readonly values = new Float64Array(10);
  private readonly rng: Rng;
  private readonly profile: HealthcareProfile;
  private readonly sequence = new SequenceCounter(EPISODE_ROUNDS);
  private state = 0;
  // The patient's own baseline offsets, drawn at admission.
  private baseHeartRate = 0;
  private baseSystolic = 0;
  private baseSpo2 = 0;
  private baseTemperature = 0;
  // Current (unrounded) vitals.
  private heartRate = 0;
  private systolic = 0;
  private diastolic = 0;
  private spo2 = 0;
  private temperature = 0;

  constructor(profile: HealthcareProfile, rng: Rng) {
    this.profile = profile;
    this.rng = rng;
  }

  next(): void {
    const rng = this.rng;
    const p = this.profile;
    if (this.sequence.begin()) {
      const s = p.startState;
      this.state = s;
      this.baseHeartRate = p.heartRateShift + 6 * rng.nextNormal();
      this.baseSystolic = p.systolicShift + 8 * rng.nextNormal();
      this.baseSpo2 = p.spo2Shift + 0.5 * rng.nextNormal();
      this.baseTemperature = 0.2 * rng.nextNormal();
      this.heartRate = HEART_RATE[s]! + this.baseHeartRate;
      this.systolic = SYSTOLIC[s]! + this.baseSystolic;
      this.diastolic = DIASTOLIC[s]! + 0.5 * this.baseSystolic;
      this.spo2 = SPO2[s]! + this.baseSpo2;
      this.temperature = TEMPERATURE[s]! + this.baseTemperature;
    } else {
      this.state = p.chain.next(this.state, rng.nextFloat());
    }
    const state = this.state;

    const noise = NOISE[state]!;
    const stress = noise * rng.nextNormal();
    this.heartRate += PULL * (HEART_RATE[state]! + this.baseHeartRate - this.heartRate) + 4 * noise * rng.nextNormal() + SHARED_HEART_RATE * stress;
    this.systolic += PULL * (SYSTOLIC[state]! + this.baseSystolic - this.systolic) + 6 * noise * rng.nextNormal() + SHARED_SYSTOLIC * stress;
    this.diastolic +=
      PULL * (DIASTOLIC[state]! + 0.5 * this.baseSystolic - this.diastolic) + 4 * noise * rng.nextNormal();
    this.spo2 += PULL * (SPO2[state]! + this.baseSpo2 - this.spo2) + 0.6 * noise * rng.nextNormal() + SHARED_SPO2 * stress;
    this.temperature +=
      PULL * (TEMPERATURE[state]! + this.baseTemperature - this.temperature) + 0.15 * noise * rng.nextNormal() + SHARED_TEMPERATURE * stress;
    this.heartRate = clamp(this.heartRate, 35, 190);
    this.systolic = clamp(this.systolic, 60, 230);
    // Pulse pressure stays at least 20 mmHg.
    this.diastolic = clamp(this.diastolic, 30, Math.min(130, this.systolic - 20));
    this.spo2 = clamp(this.spo2, 75, 100);
    this.temperature = clamp(this.temperature, 34.5, 41.5);

    const heartRate = Math.round(this.heartRate);
    const systolic = Math.round(this.systolic);
    const diastolic = Math.round(this.diastolic);
    const spo2Tenths = Math.round(this.spo2 * 10);
    const temperatureTenths = Math.round(this.temperature * 10);
    const adherence = state === CRITICAL ? Math.max(p.adherence, 0.97) : p.adherence;
    const medicationTaken = rng.nextFloat() < adherence ? 1 : 0;
    // Judged on the published (rounded) readings, so anyone can recompute it from the record.
    const alert = outsideSafeRange(heartRate, systolic, diastolic, spo2Tenths, temperatureTenths);

    const v = this.values;
    v[3] = heartRate;
    v[4] = systolic;
    v[5] = diastolic;
    v[6] = spo2Tenths;
    v[7] = temperatureTenths;
    v[8] = medicationTaken;
    v[9] = alert;
    this.sequence.finish(v, state, state === DISCHARGED);
  }
}

export const healthcare: PresetModel = {
  name: 'healthcare',
  description:
    'Patients monitored on nursing rounds: vital signs within physiological ranges shift with the ' +
    'clinical state, with alerts when a reading leaves its safe range, until discharge.',
  aliases: [],
  defaultProfile: 'stable_outpatient',
  profiles: ['stable_outpatient', 'chronic_condition', 'post_operative', 'critical_care'],
  states: STATES,
  transitions: TRANSITIONS,
  startStates: Object.fromEntries(Object.entries(PROFILES).map(([name, p]) => [name, STATES[p.startState]!])),
  episodeLength: EPISODE_ROUNDS,
  fields: [
    ...commonFields(STATES),
    integerField('heart_rate', 'Heart rate, beats per minute, integer (safe range 50-120)'),
    integerField('systolic_bp', 'Systolic blood pressure, mmHg, integer (safe range 90-180)'),
    integerField('diastolic_bp', 'Diastolic blood pressure, mmHg, integer (safe range 50-110)'),
    decimalField('spo2', 1, 'Oxygen saturation, percent, 1 decimal (safe at 92 and above)'),
    decimalField('temperature_c', 1, 'Body temperature, degrees Celsius, 1 decimal (safe range 35.5-38.5)'),
    integerField('medication_taken', '1 when the scheduled medication was taken this round, else 0'),
    integerField('alert', '1 when any vital sign is outside its safe range, else 0'),
  ],
  createSimulator(profileName: string, rng: Rng): Simulator {
    const p = PROFILES[profileName];
    if (p === undefined) throw new RangeError(`unknown healthcare profile: ${profileName}`);
    return new HealthcareSimulator(p, rng);
  },
};
