import { createHash } from 'node:crypto';
import test from 'ava';
import { ENGINE_VERSION, PRESETS, writeRecordsJson } from '../../shared/engine/index.ts';
import type { PresetName } from '../../shared/engine/index.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';
import { scenarioOutcomeOf } from '../../shared/engine/scenarioOutcomeOf.ts';

// SHA-256 of writeRecordsJson for fixed inputs, per engine version. metadata.reproducible promises that
// these bytes never change within a service_version: any change to the engine's output (models, RNG,
// seeding, number formatting) must be a new engine version beside the old ones (shared/engine/presetModels.ts)
// with its digests recorded here. Never edit the digests of a released version: every version the service
// ships stays selectable with engine_version, byte-identical forever (docs/api.md#engine-versions).
const GOLDEN: Record<string, [PresetName, string, number, number, string][]> = {
  '4.0.0': [
    ['education', 'average', 42, 1000, 'b56add5aecabdf87e65580cc50a2e77a97fc1683fe0fcdd8c7093119591a92fd'],
    ['education', 'slow_inaccurate', 4294967295, 300, 'dd2067f76589e1e9bf6fa95c804df8200b2757f448d37fcd19167e5fa32439b8'],
    ['education', 'average', 0, 1, '99f038330e6ee1b88219c09aca1889505f56471acc5f2ce0edf47cd515bc5f03'],
    ['finance', 'balanced_investor', 42, 1000, 'beb7eaa9e11b879faa89f971b6371bc89047d192f5e7a847fc9efaad6436d2bb'],
    ['finance', 'active_trader', 4294967295, 300, '037c44af67ce80322d63b8ed4f9074eb68fc23c8490b96351cf03bb062ce3948'],
    ['finance', 'conservative_investor', 0, 1, '2c2804553b169bde701b038ec6741fee86e8c90d14f891dc1c3af371f00a2591'],
    ['healthcare', 'stable_outpatient', 42, 1000, 'a074719cb5979070cd299443f9ecc32fb5a703e044a50299659a7ddf32e6fc14'],
    ['healthcare', 'critical_care', 4294967295, 300, '75d6318224fbe42bc2b26495bfc85259181d4ea752cb76971c5db46ff841e76a'],
    ['healthcare', 'stable_outpatient', 0, 1, 'f77c983dd053bedf67dace56c83c0050e9c9e0d8bcfbe38813f33a266541f9ad'],
    ['mobile_app', 'casual_user', 42, 1000, 'd4e1f4de9f592f2467bb22f5c22d51156ec39dd2ec6a861d104a4f368f7f602d'],
    ['mobile_app', 'churn_risk', 4294967295, 300, '4747021ee4da5e490d210a496c709d0b64fe9aed9c4bc4eb13b785e2c82ff680'],
    ['mobile_app', 'casual_user', 0, 1, 'c29bc364003057a278188752eeee40a4d06b2e90f5fb0fd30b948119c5d013a4'],
  ],
  '1.0.0': [
    ['education', 'average', 42, 1000, '25e49fc8825a1a26c42e2a3704dc7469c19cd5f43f9fd88b10248c62c62cf731'],
    ['education', 'slow_inaccurate', 4294967295, 300, 'df49e2741c9a3c20741f4b8fb07745bbf0fb47553da8f00c782b0511ea8ff07d'],
    ['education', 'average', 0, 1, '1c9e3bb690d223d999c119238d864b8e228fc70187fcbbd3e7c69d8283cbb72f'],
    ['finance', 'balanced_investor', 42, 1000, 'f8eb2a6017bf5af36d0b96fc08c8a3fbedc01b2f88098b1f0c21447305c3edd7'],
    ['finance', 'active_trader', 4294967295, 300, '884a742144d30f489ad293e07551d2090a64972bba9c70a805c4c0d4f0c75525'],
    ['finance', 'conservative_investor', 0, 1, '0a6da258990df30ee2148a3e1eb411c7fa3ab68c866d474634a35cf1b6db5122'],
    ['healthcare', 'stable_outpatient', 42, 1000, '75bee6023017115f981f0203fb873dc39f5db0e30dc84e02af18ed89cb2697ce'],
    ['healthcare', 'critical_care', 4294967295, 300, '8f51f69e8331e5a655f5349f3c53387f4877b6fdeb70e88e490a49f5f9a462b9'],
    ['healthcare', 'stable_outpatient', 0, 1, 'a284442aa9bdef1622b2a06305d32ae2fc0a3e1f739a814f98fbf1b27d2b074d'],
    ['mobile_app', 'casual_user', 42, 1000, '1088f759a3976ab3d6b80e0bf7e14a5ef1462abd214a0dac2991436efc65090f'],
    ['mobile_app', 'churn_risk', 4294967295, 300, 'bada2c891551a428eaeb6b4e0636167121b18143cdf648c4625589da4056b5cd'],
    ['mobile_app', 'casual_user', 0, 1, '608d03093f1a71a35e51c71e9819d68be1112b0a8df0f6352858ed19ce9f3d1e'],
  ],
  '3.0.0': [
    ['education', 'average', 42, 1000, 'f965eeec66779f37e563b37d101e78dcbc34e0b98c5cac94431fc7d13dfb8b92'],
    ['education', 'slow_inaccurate', 4294967295, 300, '9b1457f7b2b98e6557d70badb1151ab24882c4a431f06e1eac7c987bcdbf96ee'],
    ['education', 'average', 0, 1, 'c944a14f1c9667ecf5d4ca9ae52b41d765376ee43c796074a96bf09aad54ebbc'],
    ['finance', 'balanced_investor', 42, 1000, 'a0729faa8df8ec3a081d0d07f6d0631cce28ba5b30517c6405a89d4bd6e64643'],
    ['finance', 'active_trader', 4294967295, 300, 'e452189915c04f105207134b0881414a7e561ccc7d3da1ad31df3779be0a197f'],
    ['finance', 'conservative_investor', 0, 1, '021a8caa69314796fa68868ee5b64e74fb1c7aad33579a26bc233ec4e2cf3b9e'],
    ['healthcare', 'stable_outpatient', 42, 1000, 'a4cc33db166215352971272a2b71f7bb40d83e6287b074747500e7e0e6797cc6'],
    ['healthcare', 'critical_care', 4294967295, 300, '008162c220882bdc090e4f6ff3e96107ff19b6706150953acc07fa74a1de7dae'],
    ['healthcare', 'stable_outpatient', 0, 1, '180ba4f4ef568c564919f20690a1f1246a1096516962f82ed06e8b2d7fdb7b49'],
    ['mobile_app', 'casual_user', 42, 1000, 'aad98e817accbbbcc7b3c5ca6ce962cfabc7c2574b01d6b405c91625f9463309'],
    ['mobile_app', 'churn_risk', 4294967295, 300, '724385089a0993bbe376f370156240cdf37b7d24964512a1206e8d249330c985'],
    ['mobile_app', 'casual_user', 0, 1, '628b1d901c50c72e1a4c4032cedd8552f9de7780142d284e79649c96e9f25e6c'],
  ],
  '2.0.0': [
    ['education', 'average', 42, 1000, '25e49fc8825a1a26c42e2a3704dc7469c19cd5f43f9fd88b10248c62c62cf731'],
    ['education', 'slow_inaccurate', 4294967295, 300, 'df49e2741c9a3c20741f4b8fb07745bbf0fb47553da8f00c782b0511ea8ff07d'],
    ['education', 'average', 0, 1, '1c9e3bb690d223d999c119238d864b8e228fc70187fcbbd3e7c69d8283cbb72f'],
    ['finance', 'balanced_investor', 42, 1000, 'cef63b8c1eee8ead75e3fb44c8c8df83ee3b43cdae61c15bf3ded986334e5c7f'],
    ['finance', 'active_trader', 4294967295, 300, 'b1dc1123f881199975252c7f13ebd5330a808e10f84dd930167728b8a7d80bbd'],
    ['finance', 'conservative_investor', 0, 1, 'a00b306fb33d2de5a9a91e802e75267fa2aa1a3e72a605631fb538be80467df6'],
    ['healthcare', 'stable_outpatient', 42, 1000, '10b46b89f5f13479b108e22117289716cb1226f0faaea29c6d7f4f34f7689e50'],
    ['healthcare', 'critical_care', 4294967295, 300, '049641417ab701fbefb7ba5bf30a927bdd02254ede8a4ced7d2300e660f579cc'],
    ['healthcare', 'stable_outpatient', 0, 1, '93ab1936df614fb8fe3eee9eab1c244bfd6b32f5b1d3c1620d31bd07177aa3f0'],
    ['mobile_app', 'casual_user', 42, 1000, 'e57a86f651c6e331dd56d16cd7966b2b14cb0756d9a7fa2a38b425d02a489c87'],
    ['mobile_app', 'churn_risk', 4294967295, 300, '5861896ebbbac5f904be06901aea1be4a8d7829914165ea8f1829c264b73a264'],
    ['mobile_app', 'casual_user', 0, 1, '608d03093f1a71a35e51c71e9819d68be1112b0a8df0f6352858ed19ce9f3d1e'],
  ],
};

test('golden digests exist for every engine version the catalog offers', (t) => {
  t.truthy(GOLDEN[ENGINE_VERSION], `record digests for ${ENGINE_VERSION}`);
  for (const preset of PRESETS) {
    for (const version of preset.engine_versions) {
      t.true((GOLDEN[version] ?? []).some(([name]) => name === preset.name), `${preset.name} ${version}`);
    }
  }
});

for (const [serviceVersion, rows] of Object.entries(GOLDEN)) {
  for (const [preset, profile, seed, n, digest] of rows) {
    test(`output of ${preset}/${profile} seed ${seed} n ${n} matches its ${serviceVersion} golden digest`, (t) => {
      const bytes = writeRecordsJson({ preset, profile, seed, numInteractions: n, serviceVersion });
      t.is(createHash('sha256').update(bytes).digest('hex'), digest);
    });
  }
}

// Engine 3 with a scenario: the events' effects are part of the output a seed promises too.
const event = (type: string, sequence: number | 'all', at_step: number, duration: number, intensity = 1) => ({ type, sequence, at_step, duration, intensity });
const GOLDEN_SCENARIOS: [PresetName, string, number, number, Scenario, string][] = [
  ['education', 'average', 42, 1000, { events: [event('fatigue', 2, 10, 20), event('mastery_jump', 'all', 30, 5, 2)] }, '2ac5719f025c28f647eca4af9f99ef209397290e5f65407f460a9ce48b7f5c08'],
  ['finance', 'balanced_investor', 42, 1000, { events: [event('market_crash', 1, 50, 30), event('rally', 'all', 200, 20, 0.5)] }, '910b63efb0e4cc57acc1f3e0b0c5898f228d998165c515e1b6583aa58433e207'],
  ['healthcare', 'chronic_condition', 42, 1000, { events: [event('sepsis_onset', 3, 5, 10), event('missed_medication', 'all', 2, 6)] }, 'efcc735f28be32ccb4b03516841d60b530ce98ad6566ca8c11ec1f2cf3ac0aa0'],
  ['mobile_app', 'casual_user', 42, 1000, { events: [event('outage', 'all', 10, 40, 3), event('churn_wave', 1, 300, 100)] }, '06ec8c51f1269605cae2f5bfaba3c94390ad3a83fc177a39c149730dd0e05731'],
];

for (const [preset, profile, seed, n, scenario, digest] of GOLDEN_SCENARIOS) {
  test(`output of ${preset}/${profile} seed ${seed} n ${n} with a scenario matches its 3.0.0 golden digest`, (t) => {
    const bytes = writeRecordsJson({ preset, profile, seed, numInteractions: n, serviceVersion: '3.0.0', scenario });
    t.is(createHash('sha256').update(bytes).digest('hex'), digest);
  });
}

// Engine 4 in time order (a population of 37 from 2030-01-01): the merge is part of what a seed promises.
const GOLDEN_TIME_ORDER: [PresetName, string, number, number, string][] = [
  ['education', 'average', 42, 2000, '98b7a658672aa37036b00e604d33393a3d4b1acc15259530bb84e253f392440b'],
  ['finance', 'balanced_investor', 42, 2000, '68456f7d6735da7d7d11bf6b39625037b7111fc89766816b0252e4013edf68cc'],
  ['healthcare', 'chronic_condition', 42, 2000, 'ede085c43f6881ee588c66b300e27e4258ccc667d0aaccb5a3554c48f2dfadad'],
  ['mobile_app', 'casual_user', 42, 2000, 'e7be379f771915a7c4a4e11c63d655baa15aaba044529ecc459447cd0e239d86'],
];

for (const [preset, profile, seed, n, digest] of GOLDEN_TIME_ORDER) {
  test(`output of ${preset}/${profile} seed ${seed} n ${n} in time order matches its 4.0.0 golden digest`, (t) => {
    const bytes = writeRecordsJson({ preset, profile, seed, numInteractions: n, serviceVersion: '4.0.0', order: 'time', population: 37, startTime: 1_893_456_000_000 });
    t.is(createHash('sha256').update(bytes).digest('hex'), digest);
  });
}

// Engine 4 in time order with 10,000 subjects (the largest population): most never print a record before
// the run ends, and the run must not depend on how far ahead the others made theirs.
const GOLDEN_LARGE_POPULATION: [PresetName, string, string][] = [
  ['education', 'average', '515fda73d50a158261a3eaf72904ee4a4175e0040f15f352a0eb279831a0e693'],
  ['finance', 'balanced_investor', '6f30f9878ac39a045097a210f7eba6e0240bb61c1d2a71c8a9163a52ea1853ef'],
  ['healthcare', 'chronic_condition', '6d15fdac47d9e1b810eef9e51d4d356a2138b0115b66f8b6951d388c31f977a6'],
  ['mobile_app', 'casual_user', 'e51f1399b69f8d5cdb05f1962416352eb7e9ac5b64afae69acf22c077b9fd0a7'],
];

for (const [preset, profile, digest] of GOLDEN_LARGE_POPULATION) {
  test(`output of ${preset}/${profile} seed 7 n 30000 in time order with 10,000 subjects matches its 4.0.0 golden digest`, (t) => {
    const bytes = writeRecordsJson({ preset, profile, seed: 7, numInteractions: 30_000, serviceVersion: '4.0.0', order: 'time', population: 10_000 });
    t.is(createHash('sha256').update(bytes).digest('hex'), digest);
  });
}

// Engine 4 in time order with a scenario: the records and what the result says was placed. A time-ordered
// run makes each subject's next record before printing it, and `placed` counts only the events of records
// printed (with one subject, the record made last is never printed: the first outcome changed when that was
// mended, docs/decisions.md#placed-counts-printed-records); with one subject, a place freed by a sequence's
// shadow end ties with its last record, so the first also pins the order the heap gives such ties.
const AT_TIME_SCENARIO: Scenario = {
  events: [
    { type: 'fatigue', sequence: 'all', at_step: 5, duration: 20, intensity: 1 },
    { type: 'difficulty_spike', sequence: 3, at_time: '2026-01-09T00:00:00.000Z', duration: 30, intensity: 2 },
    { type: 'mastery_jump', sequence: 'all', at_time: '2026-01-20T12:00:00.000Z', duration: 10, intensity: 0.5 },
  ],
};
const GOLDEN_TIME_ORDER_SCENARIO: [string, number, string, string][] = [
  ['fast_accurate', 1, '993bdfc94f27c4a430bb804c69c77d8c39bae45d8790c7dec9542acf490625da', 'c016beec89b2e02d134219d1e486cb32569953a00071f72c1f73c5e6c1b2596d'],
  ['average', 37, '00b4b75f474875ed063058df81ac446cf8258577c9b4794923df84c0d07beb18', '49f837650eda81c9e1141ef286a3170bfdb7afdf26debd9a4dfb71f48bea93ea'],
];

for (const [profile, population, records, outcome] of GOLDEN_TIME_ORDER_SCENARIO) {
  test(`education/${profile} seed 42 n 12000 in time order with ${population} subjects and a scenario: records and outcome match their 4.0.0 golden digests`, (t) => {
    const input = { preset: 'education' as const, profile, seed: 42, numInteractions: 12_000, serviceVersion: '4.0.0', order: 'time' as const, population, scenario: AT_TIME_SCENARIO };
    t.is(createHash('sha256').update(writeRecordsJson(input)).digest('hex'), records);
    t.is(createHash('sha256').update(JSON.stringify(scenarioOutcomeOf(input))).digest('hex'), outcome);
  });
}
