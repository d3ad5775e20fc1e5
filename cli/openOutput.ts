import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file appears whole or not at all: a body cut short never leaves a partial file under FILE's name. */
export const openOutput = (out: string) => {
  const temporary = join(dirname(out), `.${basename(out)}.${randomBytes(4).toString('hex')}.partial`);
  return {
    stream: createWriteStream(temporary, { flags: 'wx' }),
    commit: () => rename(temporary, out),
    discard: () => rm(temporary, { force: true }),
  };
};
