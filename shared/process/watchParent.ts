import { readFileSync } from 'node:fs';

/** How often the parent's PID is compared with the one this process started under. Milliseconds. */
const PARENT_CHECK_INTERVAL_MS = 500;

/** The parent PID of `pid` from /proc (Linux), or undefined where that cannot be read. */
const parentOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields that follow it start after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

export type ParentLoss = 'ipc_closed' | 'reparented' | 'grandparent_gone';

/**
 * Calls `onLost` once when the process that started this one is gone, so that killing the PID a shell,
 * a process manager or a CI job holds (npm's, for `npm start`) stops the whole service instead of leaving
 * it serving unseen. SIGKILL leaves a parent no chance to forward anything, so this process has to notice
 * by itself, whichever comes first:
 * - the IPC channel to the parent closes (a process forked by the supervisor);
 * - the parent PID changes (the kernel re-parented this orphan);
 * - the parent's own parent PID changes: `npm start` runs `sh -c 'node scripts/start.ts'`, and when npm
 *   is killed the shell lives on, waiting for us, so the loss shows one level up (Linux, from /proc).
 * Returns a check to run at once, for a caller that must know now rather than at the next tick (it calls
 * `onLost` too, once, and answers whether the parent is gone).
 */
export const watchParent = (onLost: (reason: ParentLoss) => void): (() => boolean) => {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  let lost = false;
  const lose = (reason: ParentLoss): void => {
    if (lost) {
      return;
    }
    lost = true;
    clearInterval(timer);
    onLost(reason);
  };
  const check = (): boolean => {
    if (process.ppid !== parent) {
      lose('reparented');
    } else if (grandparent !== undefined && grandparent > 1 && parentOf(parent) !== grandparent) {
      lose('grandparent_gone');
    }
    return lost;
  };
  const timer = setInterval(check, PARENT_CHECK_INTERVAL_MS);
  // The check must never be what keeps a process alive.
  timer.unref();
  if (process.channel !== undefined) {
    process.once('disconnect', () => lose('ipc_closed'));
    // A 'disconnect' listener does not hold the channel open; the process ends when its work does.
    process.channel.unref();
  }
  return check;
};
