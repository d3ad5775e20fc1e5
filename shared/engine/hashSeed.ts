// Mixes (preset, profile, seed) into the 128-bit sfc32 state. n is deliberately left out so that runs are
// prefix-stable: a run of k records is the start of every longer run with the same inputs.
export function hashSeed(preset: string, profile: string, seed: number): [number, number, number, number] {
  const text = `${preset}\u0000${profile}\u0000`;
  // Four lanes with distinct odd multipliers so each state word depends on every input character.
  let h1 = 0x9e3779b9;
  let h2 = 0x243f6a88;
  let h3 = 0xb7e15162;
  let h4 = 0x85a308d3;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 0x85ebca6b);
    h2 = Math.imul(h2 ^ ch, 0xc2b2ae35);
    h3 = Math.imul(h3 ^ ch, 0x27d4eb2f);
    h4 = Math.imul(h4 ^ ch, 0x165667b1);
  }
  // The seed goes in whole as one 32-bit word; >>> 0 keeps seeds above 2^31 distinct from negatives.
  const s = seed >>> 0;
  h1 = Math.imul(h1 ^ s, 0xcc9e2d51);
  h2 = Math.imul(h2 ^ s, 0x1b873593);
  h3 = Math.imul(h3 ^ s, 0xe6546b64);
  h4 = Math.imul(h4 ^ s, 0x9e3779b1);
  // Cross the lanes, then avalanche each one (murmur3's fmix32).
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  return [fmix32(h1), fmix32(h2), fmix32(h3), fmix32(h4)];
}

function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
