import { readFileSync } from 'node:fs';
import pg from 'pg';

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux this runs on (getconf CLK_TCK).
const TICKS_PER_SECOND = 100;

/** CPU milliseconds (user + system, all threads) a process has used so far; 0 once it is gone. */
export const readProcessCpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
};

export interface CpuSample {
  /** CPU ms so far per pid: one process or a set of them (a database's backends). */
  readonly byPid: ReadonlyMap<number, number>;
}

/** One source of CPU time in the table: a fixed pid, or a set of pids looked up at each sample. */
export interface CpuSource {
  readonly name: string;
  readonly pids: () => Promise<readonly number[]>;
}

export const fixedPid = (name: string, pid: number): CpuSource => ({ name, pids: () => Promise.resolve([pid]) });

/**
 * The backends of one database, found in pg_stat_activity from a connection to another database (so the
 * lookup itself is not counted). Backends come and go: a sample covers the union of the pids seen before
 * and after a run, and a backend that appeared during it counts from zero.
 */
export const databaseBackends = (name: string, adminUrl: string, database: string): CpuSource & { close: () => Promise<void> } => {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'bench-cpu' });
  const connected = client.connect();
  return {
    name,
    pids: async () => {
      await connected;
      const result = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
      return result.rows.map((row) => row.pid);
    },
    close: async () => {
      await connected;
      await client.end();
    },
  };
};

export interface CpuWindow {
  /** Ends the window: CPU ms each source used since it began. */
  readonly stop: () => Promise<Map<string, number>>;
}

/** Begins a measurement window over the sources. */
export const startCpuWindow = async (sources: readonly CpuSource[]): Promise<CpuWindow> => {
  const before = new Map<string, Map<number, number>>();
  for (const source of sources) {
    before.set(source.name, new Map((await source.pids()).map((pid) => [pid, readProcessCpuMs(pid)])));
  }
  return {
    stop: async () => {
      const used = new Map<string, number>();
      for (const source of sources) {
        const start = before.get(source.name) ?? new Map<number, number>();
        const pids = new Set([...start.keys(), ...(await source.pids())]);
        let total = 0;
        for (const pid of pids) {
          const now = readProcessCpuMs(pid);
          // A backend gone since the start reads 0: its time during the run is lost, never negative.
          total += Math.max(0, now - (start.get(pid) ?? 0));
        }
        used.set(source.name, total);
      }
      return used;
    },
  };
};
