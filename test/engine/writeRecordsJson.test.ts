import test from 'ava';
import { PRESETS, generateRecords, writeRecordsJson } from '../../shared/engine/index.ts';
import { writeDecimal } from '../../shared/engine/writeDecimal.ts';
import { writeInteger } from '../../shared/engine/writeInteger.ts';

function printed(write: (view: DataView, pos: number) => number): string {
  const bytes = new Uint8Array(64);
  const end = write(new DataView(bytes.buffer), 0);
  return Buffer.from(bytes.subarray(0, end)).toString('latin1');
}

test('writeRecordsJson bytes equal JSON.stringify of generateRecords for every preset and profile', (t) => {
  for (const preset of PRESETS) {
    for (const profile of preset.supported_profiles) {
      for (const [seed, n] of [
        [0, 1],
        [1, 2],
        [4_294_967_295, 5_000],
      ] as const) {
        const input = { preset: preset.name, profile, seed, numInteractions: n };
        const expected = Buffer.from(JSON.stringify(generateRecords(input)));
        t.true(writeRecordsJson(input).equals(expected), `${preset.name}/${profile} seed=${seed} n=${n}`);
      }
    }
  }
});

test('writeRecordsJson grows its buffer for long runs without changing the bytes', (t) => {
  // Long enough to outgrow the writer's initial scratch buffer several times.
  const input = { preset: 'healthcare' as const, profile: 'critical_care', seed: 9, numInteractions: 60_000 };
  const bytes = writeRecordsJson(input);
  t.true(bytes.length > 8 * 1024 * 1024);
  t.true(bytes.equals(Buffer.from(JSON.stringify(generateRecords(input)))));
  // And a short run afterwards, in the grown scratch, is still exact.
  const small = { ...input, numInteractions: 3 };
  t.true(writeRecordsJson(small).equals(Buffer.from(JSON.stringify(generateRecords(small)))));
});

test('writeRecordsJson returns a Buffer that owns exactly its bytes', (t) => {
  const bytes = writeRecordsJson({ preset: 'finance', profile: 'active_trader', seed: 3, numInteractions: 100 });
  t.true(Buffer.isBuffer(bytes));
  t.is(bytes.byteOffset, 0);
  t.is(bytes.buffer.byteLength, bytes.length);
  t.notThrows(() => JSON.parse(bytes.toString('utf8')));
});

test('integers print as JSON.stringify prints them', (t) => {
  const values = [
    0, -0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 10001, 99999, 100000, 1234567, 9999999, 10000000,
    99999999, 100000000, 100000001, 2147483647, 2147483648, 4294967295, 4294967296, 99999999999,
    1e15, 2 ** 53 - 1, 2 ** 53 - 2, 9_007_199_154_740_991, -1, -12345, -(2 ** 53 - 1),
  ];
  let x = 1;
  for (let i = 0; i < 2000; i++) {
    x = (x * 48271) % 2147483647;
    values.push(x, x * 977, Math.floor((x / 2147483647) * 2 ** 53));
  }
  for (const v of values) t.is(printed((view, pos) => writeInteger(view, pos, v)), JSON.stringify(v), String(v));
});

test('decimals print as JSON.stringify prints the rounded number', (t) => {
  const cases: [number, number][] = [];
  for (const decimals of [1, 2, 3, 6]) {
    for (const scaled of [0, -0, 1, -1, 5, 10, 11, 99, 100, 101, 120, 1000, 1001, 1010, 1100, 123456, 999999, 1000000]) {
      cases.push([scaled, decimals]);
    }
  }
  let x = 7;
  for (let i = 0; i < 3000; i++) {
    x = (x * 48271) % 2147483647;
    cases.push([x, 2], [-x, 6], [x % 1000, 3], [x % 1000000, 6], [x % 10000, 1], [x * 1000, 2]);
  }
  // Large portfolio values in cents stay exact up to the engine's cap.
  cases.push([1e15, 2], [1e15 - 1, 2], [123456789012345, 2]);
  for (const [scaled, decimals] of cases) {
    const expected = JSON.stringify(scaled / 10 ** decimals);
    t.is(printed((view, pos) => writeDecimal(view, pos, scaled, decimals)), expected, `${scaled}e-${decimals}`);
  }
});
