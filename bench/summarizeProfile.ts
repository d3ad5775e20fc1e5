import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  /** µs on the monotonic clock (process.hrtime's, on Linux). */
  readonly startTime: number;
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Frame {
  readonly frame: string;
  readonly selfMs: number;
  /** Share of the busy (non-idle) time. */
  readonly share: number;
}

// Where a frame lives, shortened to what a reader needs: the package or our own file.
const place = (url: string, line: number): string => {
  if (url === '') {
    return '';
  }
  const file = url.replace(/^file:\/\//, '');
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  const shown = inPackage === null ? (file.startsWith('node:') ? file : path.relative(process.cwd(), file)) : `${inPackage[1]}/${inPackage[2]}`;
  return ` ${shown}:${line + 1}`;
};

/**
 * Top frames by self time of a `node --cpu-prof` profile, idle and GC kept apart from busy time; only the
 * samples within `window` (µs on the monotonic clock, `process.hrtime.bigint() / 1000n`) when given, so
 * a benchmark can leave out the process's start.
 */
export const summarizeProfile = (file: string, top = 20, window?: { readonly fromUs: number; readonly toUs: number }): { busyMs: number; idleMs: number; frames: Frame[] } => {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const names = new Map(profile.nodes.map((node) => [node.id, `${node.callFrame.functionName || '(anonymous)'}${place(node.callFrame.url, node.callFrame.lineNumber)}`]));
  const self = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (window !== undefined && (at < window.fromUs || at > window.toUs)) return;
    const name = names.get(id) ?? '?';
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const idleMs = self.get('(idle)') ?? 0;
  self.delete('(idle)');
  const busyMs = [...self.values()].reduce((sum, value) => sum + value, 0);
  const frames = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, selfMs]) => ({ frame, selfMs, share: selfMs / busyMs }));
  return { busyMs, idleMs, frames };
};
