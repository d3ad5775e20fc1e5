import cliProgress from 'cli-progress';

export interface ProgressBar {
  readonly advance: (records: number, bytes: number) => void;
  /** Shows the end (100 %) and leaves the line in place. */
  readonly complete: () => void;
  /** Stops where it is (a failed run), restoring the cursor. */
  readonly stop: () => void;
}

const formatBytes = (bytes: number): string => {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
};

/** Runs at least this long get a bar; smaller ones finish before a bar would tell anything. */
export const PROGRESS_MIN_INTERACTIONS = 10_000;

/** A progress bar on `stream` (a terminal): records of the total, bytes, records per second and ETA. */
export const createProgressBar = (stream: NodeJS.WriteStream, total: number): ProgressBar => {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{bar} {percentage}% | {value}/{total} records | {size} | {speed} records/s | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  let records = 0;
  let bytes = 0;
  const payload = () => {
    const seconds = (performance.now() - started) / 1000;
    return { size: formatBytes(bytes), speed: seconds > 0 ? Math.round(records / seconds) : 0 };
  };
  bar.start(total, 0, payload());
  return {
    advance: (moreRecords, moreBytes) => {
      records += moreRecords;
      bytes += moreBytes;
      bar.update(Math.min(records, total), payload());
    },
    complete: () => {
      bar.update(total, payload());
      bar.stop();
    },
    stop: () => bar.stop(),
  };
};
