/**
 * The last lines `npm run bench:compare` prints, as pure functions of the runs' figures (tested in
 * test/bench/compare/ratioLine.test.ts): the ratio line (Tether's medians over virtual-kubelet's,
 * with the bind mode and the client budget they were measured under) and the line that sets
 * Tether's time to all Ready against the API server's own write limit measured in the same run.
 */
import { median } from '../measure.js';
import type { BindMode } from './options.js';

/** What the ratio line reads of one run of one side. */
export interface RunFigures {
  readonly createMs: number;
  readonly createCpuS: number;
  readonly deleteCpuS: number;
  readonly peakRssMiB: number;
  readonly createWrites: number;
  readonly deleteWrites: number;
  readonly latencyP99Ms: number;
}

export interface RatioMode {
  readonly bind: BindMode;
  readonly qps: number;
  readonly burst: number;
}

/** `a / b` to two decimals; `n/a` when either is missing or `b` is zero. */
export function ratio(a: number | null, b: number | null): string {
  return a !== null && b !== null && b !== 0 ? (a / b).toFixed(2) : 'n/a';
}

/**
 * `tether/virtual-kubelet: ready=R cpu=R cpu-create=R cpu-delete=R rss=R writes=R p99=R bind=… qps=… burst=…`:
 * each R the median of Tether's runs over the median of virtual-kubelet's. `cpu` is creating plus
 * deleting; the two phases follow, as the targets are per phase. The prefix and the first five keys
 * are those of the line before the bind modes, so a reader of the old line still finds them.
 */
export function ratioLine(tether: readonly RunFigures[], vk: readonly RunFigures[], mode: RatioMode): string {
  const r = (pick: (run: RunFigures) => number): string => ratio(median(tether.map(pick)), median(vk.map(pick)));
  return [
    'tether/virtual-kubelet:',
    `ready=${r((x) => x.createMs)}`,
    `cpu=${r((x) => x.createCpuS + x.deleteCpuS)}`,
    `rss=${r((x) => x.peakRssMiB)}`,
    `writes=${r((x) => x.createWrites + x.deleteWrites)}`,
    `p99=${r((x) => x.latencyP99Ms)}`,
    `cpu-create=${r((x) => x.createCpuS)}`,
    `cpu-delete=${r((x) => x.deleteCpuS)}`,
    `bind=${mode.bind}`,
    `qps=${mode.qps}`,
    `burst=${mode.burst}`,
  ].join(' ');
}

/**
 * Tether's median time to all Ready over the time the API server itself needs for the same number
 * of status writes (`pods` at `writesPerSecond`, a plain client with no limit): 1.00 is the API
 * server's own ceiling; `n/a` without a limit or without Tether's runs.
 */
export function apiLimitLine(tetherReadyMs: readonly number[], pods: number, writesPerSecond: number | undefined): string {
  const floorS = writesPerSecond === undefined || writesPerSecond <= 0 ? null : pods / writesPerSecond;
  const readyMedian = median(tetherReadyMs);
  const readyS = readyMedian === null ? null : readyMedian / 1000;
  const floor = floorS === null ? 'n/a' : `${floorS.toFixed(1)} s`;
  return `tether/api-server-limit: ready=${ratio(readyS, floorS)} (Tether all Ready ${readyS === null ? 'n/a' : `${readyS.toFixed(1)} s`}; ${pods} status writes at the API server's own limit: ${floor})`;
}
