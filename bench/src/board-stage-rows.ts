/** The small-board bench's rows of the listening path's CPU, split by stage (see board-stages.ts). */
import type { BuildResult } from './board-report.js';
import { STAGES, type StageCpu, type StageSplit } from './board-stages.js';
import { met, round } from './stats.js';

/** The rest's part that is the recorder: arecord through ALSA's pulse plugin (a board may record from ALSA directly). */
const RECORDER = '  of the rest, arecord (ALSA pulse plugin)';

const TITLES: Record<keyof StageSplit, string> = {
  silence: 'in a quiet room',
  speech: 'in the first speech it hears',
  steady: 'in speech, steady (after 20 s of other speech)',
};

/** The rows of the CPU split by stage, each kind's three held to its limit (the first speech: none). */
export function stageRows(
  rows: string[][],
  mine: BuildResult,
  base: BuildResult | undefined,
  limits: { silence: number; steady: number },
): void {
  for (const kind of Object.keys(TITLES) as (keyof StageSplit)[]) {
    const title = TITLES[kind];
    const limit = kind === 'speech' ? undefined : limits[kind];
    // The cgroup's figure is of a hark that had heard no speech before: the rest is read against the first speech.
    const window = (r: BuildResult) =>
      kind === 'steady' ? undefined : r.shares.find((s) => s.share === undefined)?.room.cpu?.[kind];
    const stage = (r: BuildResult, name: string) => {
      const stages = r.stages?.[kind];
      if (!stages) return NaN;
      const three = STAGES.reduce((sum, s) => sum + stages[s], 0);
      if (name === 'the three') return three;
      const cgroup = window(r);
      if (name === RECORDER) return cgroup ? ((cgroup.byCommand.arecord ?? NaN) / cgroup.audioMs) * 100 : NaN;
      if (name === 'rest') return cgroup ? cgroup.percent - three : NaN;
      return stages[name as keyof StageCpu];
    };
    rows.push([`[CPU by stage, uncapped, ${title}: % of a core]`, '', '', ...(base ? ['', '', ''] : [])]);
    const cell = (v: number) => (Number.isFinite(v) ? `${round(v, 2)} %` : '- (no uncapped run)');
    const names = kind === 'steady' ? [...STAGES, 'the three'] : [...STAGES, 'the three', 'rest', RECORDER];
    for (const name of names) {
      const a = stage(mine, name);
      const b = base ? stage(base, name) : NaN;
      rows.push([
        `  ${name}`,
        name === 'the three' && limit !== undefined ? `<= ${limit} % ${met(a <= limit)}` : 'info',
        cell(a),
        ...(base ? [cell(b), `x${round(a / b, 2)}`] : []),
      ]);
    }
  }
}
