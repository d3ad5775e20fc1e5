import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
}

/** /proc/<pid>/stat: the command name may hold spaces and parentheses, so fields are read after the last ')'. */
const readStat = (pid: number): ProcStat | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state = '?', ppid = '0'] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(ppid), state };
  } catch {
    return undefined;
  }
};

const allProcesses = (): ProcStat[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);

/** Every live descendant of `root` (children, their children, …), read from /proc now. */
export const descendantsOf = (root: number): number[] => {
  const processes = allProcesses();
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = processes.filter((stat) => frontier.includes(stat.ppid)).map((stat) => stat.pid);
    found.push(...children);
    frontier = children;
  }
  return found;
};

/** Whether a process still runs: gone, or a zombie nobody reaped yet (it runs no code), is not running. */
export const isRunning = (pid: number): boolean => {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
};
