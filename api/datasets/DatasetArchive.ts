import { PassThrough } from 'node:stream';
import { Zip, ZipDeflate } from 'fflate';
import { ClientAbortedError } from '../../shared/errors/errors.ts';

// Text is handed to the deflater in pieces of about this size: big enough to compress well, small enough
// that no piece holds much of the run.
const PIECE_CHARS = 64 * 1024;
const ENCODER = new TextEncoder();

/**
 * A zip archive written as it is made (fflate's streaming Zip: each entry's size and CRC go in a data
 * descriptor after its bytes, so nothing is held to be measured first): one entry open at a time, its
 * text deflated in pieces, the archive's bytes pushed into `stream` (the response body) as they come.
 * `ready` waits while the client reads slower than the archive is made, so a slow reader slows the run
 * instead of filling memory. docs/datasets.md says why fflate.
 */
export class DatasetArchive {
  readonly stream = new PassThrough({ highWaterMark: 256 * 1024 });
  private readonly zip: Zip;
  private entry: ZipDeflate | undefined;
  private pending = '';
  private failure: Error | undefined;

  constructor() {
    this.zip = new Zip((error, bytes, final) => {
      if (error !== null) {
        this.failure = error;
        return;
      }
      this.stream.write(bytes);
      if (final) this.stream.end();
    });
  }

  /** Starts an entry; the one before it must be closed. */
  open(path: string): void {
    if (this.entry !== undefined) throw new Error(`entry still open before ${path}`);
    this.entry = new ZipDeflate(path, { level: 6 });
    this.zip.add(this.entry);
  }

  /** Appends text to the open entry. */
  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= PIECE_CHARS) this.flush(false);
  }

  close(): void {
    this.flush(true);
    this.entry = undefined;
  }

  /** A whole small entry (JSON files). */
  add(path: string, text: string): void {
    this.open(path);
    this.write(text);
    this.close();
  }

  /** Writes the central directory: the archive is whole once the stream ends. */
  end(): void {
    this.zip.end();
    this.check();
  }

  /** Resolves once the client has taken enough to go on; rejects if it went away. */
  async ready(): Promise<void> {
    this.check();
    const stream = this.stream;
    if (stream.destroyed) throw new ClientAbortedError();
    if (stream.writableLength < stream.writableHighWaterMark) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        stream.off('drain', onDrain);
        stream.off('close', onClose);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(new ClientAbortedError());
      stream.on('drain', onDrain);
      stream.on('close', onClose);
    });
  }

  private flush(final: boolean): void {
    const entry = this.entry;
    if (entry === undefined) throw new Error('no entry open');
    entry.push(ENCODER.encode(this.pending), final);
    this.pending = '';
    this.check();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
