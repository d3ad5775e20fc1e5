import { clamp } from '../../clamp.ts';
import { scenarioEventField } from '../../fieldSpec.ts';
import type { ScenarioEventType } from '../../scenario.ts';
import type { PresetModel, RunContext, Simulator } from '../../simulator.ts';
import { ScenarioSimulator } from './ScenarioSimulator.ts';
import {
  CRITICAL,
  DIASTOLIC,
  DISCHARGED,
  EPISODE_ROUNDS,
  healthcare as healthcare2,
  type HealthcareProfile,
  HEART_RATE,
  NOISE,
  outsideSafeRange,
  PROFILES,
  PULL,
  SHARED_HEART_RATE,
  SHARED_SPO2,
  SHARED_SYSTOLIC,
  SHARED_TEMPERATURE,
  SPO2,
  STATES,
  SYSTOLIC,
  TEMPERATURE,
} from '../v2/healthcare.ts';

// Engine 3 keeps engine 2's patients, regimes and co-moving vitals, draws every number by patient and
// round (CounterRng), and calibrates adherence: each patient has an adherence of their own around the
// profile's, and chronic patients take about half their doses as WHO (2003, "Adherence to long-term
// therapies") reports for chronic disease in developed countries.
const STABLE = STATES.indexOf('Stable');
const ELEVATED = STATES.indexOf('Elevated');
const RECOVERING = STATES.indexOf('Recovering');
const ADHERENCE: Readonly<Record<string, number>> = {
  stable_outpatient: 0.8,
  chronic_condition: 0.55,
  post_operative: 0.93,
  critical_care: 0.97,
};
const ADHERENCE_SPREAD = 0.15;
// Doses in intensive care are given by nurses.
const CRITICAL_ADHERENCE = 0.97;

const SEPSIS_ONSET = 0;
const MISSED_MEDICATION = 1;
const HYPOXIA = 2;
// Sepsis (Singer et al. 2016, Sepsis-3; SIRS criteria, Bone et al. 1992): tachycardia, fever, falling
// pressure and saturation together, and organ dysfunction escalating the patient one state a round
// toward Critical. Offsets of the vitals' targets per unit of intensity, beyond the Critical state's own
// septic-shock-like values (so a patient already Critical still worsens).
const SEPSIS_HEART_RATE = 20;
const SEPSIS_TEMPERATURE = 1.2;
const SEPSIS_SPO2 = -2.5;
const SEPSIS_SYSTOLIC = -18;
const SEPSIS_DIASTOLIC = -10;
// Missed antihypertensive doses: pressure and heart rate rebound (Burnier & Egan 2019), and more flares.
const MISSED_SYSTOLIC = 12;
const MISSED_DIASTOLIC = 6;
const MISSED_HEART_RATE = 4;
const MISSED_FLARE = 0.15;
// Acute hypoxaemia: saturation falls fast, the heart compensates.
const HYPOXIA_SPO2 = -8;
const HYPOXIA_HEART_RATE = 10;

const SCENARIO_EVENTS: readonly ScenarioEventType[] = [
  {
    type: 'sepsis_onset',
    description:
      'Onset of sepsis (SIRS / Sepsis-3 picture): the patient escalates one state per round to Critical ' +
      '(tachycardic, febrile, hypotensive, desaturating) and beyond it heart rate rises a further 20 bpm, ' +
      'temperature 1.2 °C, SpO2 falls 2.5 points and systolic pressure 18 mmHg (x intensity).',
    effect: 'mean heart_rate ≥ 15 bpm higher, mean spo2 ≥ 2 lower, mean temperature_c ≥ 1.0 higher; Critical reached',
  },
  {
    type: 'missed_medication',
    description:
      'Scheduled medication not taken (e.g. antihypertensives skipped): no dose on any round of the window, ' +
      'blood pressure and heart rate rebound, and flare-ups (Stable to Elevated) become likelier.',
    effect: 'medication_taken 0 on every record; mean systolic_bp higher',
  },
  {
    type: 'hypoxia',
    description:
      'Acute hypoxaemia (e.g. a respiratory event): SpO2 falls ~8 points x intensity with a compensating ' +
      'tachycardia, so saturation alerts fire.',
    effect: 'mean spo2 ≥ 4 lower; alert set on most records',
  },
];

class HealthcareSimulator extends ScenarioSimulator<HealthcareProfile> implements Simulator {
  readonly values = new Float64Array(11);
  private readonly adherence: number;
  private state = 0;
  private patientAdherence = 0;
  private baseHeartRate = 0;
  private baseSystolic = 0;
  private baseSpo2 = 0;
  private baseTemperature = 0;
  private heartRate = 0;
  private systolic = 0;
  private diastolic = 0;
  private spo2 = 0;
  private temperature = 0;

  constructor(profile: HealthcareProfile, adherence: number, run: RunContext) {
    super(profile, run, EPISODE_ROUNDS, SCENARIO_EVENTS);
    this.adherence = adherence;
  }

  next(): void {
    const rng = this.rng;
    const p = this.profile;
    const sequence = this.sequence;
    const admitted = sequence.begin();
    const id = sequence.sequenceId;
    const step = sequence.step;
    if (admitted) {
      rng.subject(id);
      rng.at(0);
      const s = p.startState;
      this.state = s;
      this.baseHeartRate = p.heartRateShift + 6 * rng.normal(0);
      this.baseSystolic = p.systolicShift + 8 * rng.normal(1);
      this.baseSpo2 = p.spo2Shift + 0.5 * rng.normal(2);
      this.baseTemperature = 0.2 * rng.normal(3);
      this.patientAdherence = clamp(this.adherence + ADHERENCE_SPREAD * rng.normal(4), 0.05, 0.995);
      this.heartRate = HEART_RATE[s]! + this.baseHeartRate;
      this.systolic = SYSTOLIC[s]! + this.baseSystolic;
      this.diastolic = DIASTOLIC[s]! + 0.5 * this.baseSystolic;
      this.spo2 = SPO2[s]! + this.baseSpo2;
      this.temperature = TEMPERATURE[s]! + this.baseTemperature;
      this.targeted = this.schedule.enter(id);
    }
    rng.at(step);
    const uState = rng.uniform(0);
    const stressNoise = rng.normal(1);
    const heartNoise = rng.normal(2);
    const systolicNoise = rng.normal(3);
    const diastolicNoise = rng.normal(4);
    const spo2Noise = rng.normal(5);
    const temperatureNoise = rng.normal(6);
    const uMedication = rng.uniform(7);
    const previous = this.state;
    if (!admitted) this.state = p.chain.next(previous, uState);

    const event = this.eventAt(step);
    const type = event < 0 ? -1 : this.schedule.types[event]!;
    const intensity = event < 0 ? 0 : this.schedule.intensities[event]!;
    let heartShift = 0;
    let systolicShift = 0;
    let diastolicShift = 0;
    let spo2Shift = 0;
    let temperatureShift = 0;
    if (type === SEPSIS_ONSET) {
      heartShift = SEPSIS_HEART_RATE * intensity;
      temperatureShift = SEPSIS_TEMPERATURE * intensity;
      spo2Shift = SEPSIS_SPO2 * intensity;
      systolicShift = SEPSIS_SYSTOLIC * intensity;
      diastolicShift = SEPSIS_DIASTOLIC * intensity;
      // One published step a round toward Critical (Stable or Recovering -> Elevated -> Critical), and no
      // discharge meanwhile. Not on admission: a sequence starts in its profile's start state.
      if (!admitted) this.state = previous === STABLE || previous === RECOVERING ? ELEVATED : CRITICAL;
    } else if (type === MISSED_MEDICATION) {
      heartShift = MISSED_HEART_RATE * intensity;
      systolicShift = MISSED_SYSTOLIC * intensity;
      diastolicShift = MISSED_DIASTOLIC * intensity;
      if (previous === STABLE && this.state === STABLE && rng.uniform(8) < MISSED_FLARE * intensity) this.state = ELEVATED;
    } else if (type === HYPOXIA) {
      spo2Shift = HYPOXIA_SPO2 * intensity;
      heartShift = HYPOXIA_HEART_RATE * intensity;
      // The fall is acute: saturation drops at once rather than drifting down over rounds.
      if (step === this.schedule.startOf(event)) this.spo2 += 0.5 * spo2Shift;
    }
    const state = this.state;

    const noise = NOISE[state]!;
    const stress = noise * stressNoise;
    this.heartRate +=
      PULL * (HEART_RATE[state]! + this.baseHeartRate + heartShift - this.heartRate) + 4 * noise * heartNoise + SHARED_HEART_RATE * stress;
    this.systolic +=
      PULL * (SYSTOLIC[state]! + this.baseSystolic + systolicShift - this.systolic) + 6 * noise * systolicNoise + SHARED_SYSTOLIC * stress;
    this.diastolic +=
      PULL * (DIASTOLIC[state]! + 0.5 * this.baseSystolic + diastolicShift - this.diastolic) + 4 * noise * diastolicNoise;
    this.spo2 += PULL * (SPO2[state]! + this.baseSpo2 + spo2Shift - this.spo2) + 0.6 * noise * spo2Noise + SHARED_SPO2 * stress;
    this.temperature +=
      PULL * (TEMPERATURE[state]! + this.baseTemperature + temperatureShift - this.temperature) +
      0.15 * noise * temperatureNoise +
      SHARED_TEMPERATURE * stress;
    this.heartRate = clamp(this.heartRate, 35, 190);
    this.systolic = clamp(this.systolic, 60, 230);
    this.diastolic = clamp(this.diastolic, 30, Math.min(130, this.systolic - 20));
    this.spo2 = clamp(this.spo2, 75, 100);
    this.temperature = clamp(this.temperature, 34.5, 41.5);

    const heartRate = Math.round(this.heartRate);
    const systolic = Math.round(this.systolic);
    const diastolic = Math.round(this.diastolic);
    const spo2Tenths = Math.round(this.spo2 * 10);
    const temperatureTenths = Math.round(this.temperature * 10);
    const adherence = state === CRITICAL ? Math.max(this.patientAdherence, CRITICAL_ADHERENCE) : this.patientAdherence;
    const medicationTaken = type !== MISSED_MEDICATION && uMedication < adherence ? 1 : 0;
    const alert = outsideSafeRange(heartRate, systolic, diastolic, spo2Tenths, temperatureTenths);

    const v = this.values;
    v[3] = heartRate;
    v[4] = systolic;
    v[5] = diastolic;
    v[6] = spo2Tenths;
    v[7] = temperatureTenths;
    v[8] = medicationTaken;
    v[9] = alert;
    v[10] = type;
    sequence.finish(v, state, state === DISCHARGED);
  }
}

export const healthcare: PresetModel = {
  ...healthcare2,
  scenarioEvents: SCENARIO_EVENTS,
  fields: [...healthcare2.fields, scenarioEventField(SCENARIO_EVENTS.map((e) => e.type))],
  createSimulator(profileName: string, _rng: unknown, run: RunContext): Simulator {
    const p = PROFILES[profileName];
    const adherence = ADHERENCE[profileName];
    if (p === undefined || adherence === undefined) throw new RangeError(`unknown healthcare profile: ${profileName}`);
    return new HealthcareSimulator(p, adherence, run);
  },
};
