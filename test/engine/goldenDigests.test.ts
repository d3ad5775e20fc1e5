import { createHash } from 'node:crypto';
import test from 'ava';
import { ENGINE_VERSION, writeRecordsJson } from '../../shared/engine/index.ts';
import type { PresetName } from '../../shared/engine/index.ts';

// SHA-256 of writeRecordsJson for fixed inputs, per engine version. metadata.reproducible promises that
// these bytes never change within a service_version: any change to the engine's output (models, RNG,
// seeding, number formatting) must bump ENGINE_VERSION and record the new digests under the new version.
// Never edit the digests of a released version.
const GOLDEN: Record<string, [PresetName, string, number, number, string][]> = {
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
};

test('golden digests exist for the current engine version', (t) => {
  t.truthy(GOLDEN[ENGINE_VERSION], `record digests for ${ENGINE_VERSION}`);
});

for (const [preset, profile, seed, n, digest] of GOLDEN[ENGINE_VERSION] ?? []) {
  test(`output of ${preset}/${profile} seed ${seed} n ${n} matches its ${ENGINE_VERSION} golden digest`, (t) => {
    const bytes = writeRecordsJson({ preset, profile, seed, numInteractions: n });
    t.is(createHash('sha256').update(bytes).digest('hex'), digest);
  });
}
