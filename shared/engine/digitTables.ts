// Four ASCII digits packed little-endian into one int32, so the byte writer prints four digits with one
// DataView store. Each table has 10,000 entries (40 KB), built once per thread.
export interface DigitTables {
  /** x as exactly four digits, zero-padded: 42 -> "0042". */
  readonly padded: Int32Array;
  /** x without leading zeros, padded with zero bytes the writer overwrites: 42 -> "42\0\0". */
  readonly plain: Int32Array;
  /** Number of digits of x (1 for 0). */
  readonly plainLength: Uint8Array;
  /** Digits of the zero-padded group left after dropping trailing zeros: 4200 -> 2 ("42"), 0 -> 0. */
  readonly strippedLength: Uint8Array;
}

function build(): DigitTables {
  const padded = new Int32Array(10000);
  const plain = new Int32Array(10000);
  const plainLength = new Uint8Array(10000);
  const strippedLength = new Uint8Array(10000);
  const pack = (text: string): number => {
    let word = 0;
    for (let i = 0; i < text.length; i++) word |= text.charCodeAt(i) << (8 * i);
    return word;
  };
  for (let x = 0; x < 10000; x++) {
    const digits = String(x);
    padded[x] = pack(digits.padStart(4, '0'));
    plain[x] = pack(digits);
    plainLength[x] = digits.length;
    strippedLength[x] = x === 0 ? 0 : digits.padStart(4, '0').replace(/0+$/, '').length;
  }
  return { padded, plain, plainLength, strippedLength };
}

export const digitTables: DigitTables = build();
