import { InvalidArgumentError } from 'commander';

/** An integer option within bounds; commander reports the message and the CLI exits 2. */
export const integerIn =
  (minimum: number, maximum: number) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < minimum || Number(value) > maximum) {
      throw new InvalidArgumentError(`expected an integer from ${minimum} to ${maximum}.`);
    }
    return Number(value);
  };
