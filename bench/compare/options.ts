/**
 * The command line of `npm run bench:compare`, parsed apart from the bench so that it is tested
 * without a cluster (test/bench/compare/options.test.ts).
 *
 * `--bind deployment` (the default): a Deployment's pods, created and deleted by
 * kube-controller-manager's own client (20 qps), so at 1,000 pods both agents wait on it.
 * `--bind direct`: the bench creates the pods itself with `spec.nodeName` set and deletes them with
 * one delete-collection, faster than either agent's write budget, so each agent's own cost and
 * ceiling show. `--qps` (and `--burst`, 2x qps unless given) lift both agents' client budget alike.
 * `--tether-build bundle` (the default) runs Tether's side as one bundled module, as the image ships
 * the agent (tools/bundle/bundle.mjs); `modules` runs the compiled files under dist/ with node_modules.
 */
import { parseArgs } from 'node:util';

export type BindMode = 'deployment' | 'direct';
export type Side = 'tether' | 'virtual-kubelet';
export type TetherBuild = 'bundle' | 'modules';

export interface CompareOptions {
  readonly pods: number;
  readonly runs: number;
  readonly bind: BindMode;
  /** Both agents' client: requests per second and burst. */
  readonly qps: number;
  readonly burst: number;
  readonly outageTimeoutMs: number;
  /** Leave out the remote outage phase (a quicker look at create and delete alone). */
  readonly skipOutage: boolean;
  readonly sides: readonly Side[];
  /** How Tether's side is loaded: the shipped bundle, or dist/'s modules. */
  readonly tetherBuild: TetherBuild;
}

const SIDES: readonly Side[] = ['tether', 'virtual-kubelet'];
const BINDS: readonly BindMode[] = ['deployment', 'direct'];
const BUILDS: readonly TetherBuild[] = ['bundle', 'modules'];

function positive(flag: string, text: string, integer: boolean): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`--${flag} must be a positive ${integer ? 'integer' : 'number'}, not '${text}'`);
  }
  return value;
}

function oneOf<T extends string>(flag: string, text: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === text);
  if (found === undefined) throw new Error(`--${flag} must be one of ${allowed.join(', ')}, not '${text}'`);
  return found;
}

/** Parses `argv` (the arguments after the script); throws with the flag's name on a bad value. */
export function parseCompareOptions(argv: readonly string[]): CompareOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      pods: { type: 'string', default: '1000' },
      runs: { type: 'string', default: '3' },
      bind: { type: 'string', default: 'deployment' },
      qps: { type: 'string', default: '50' },
      burst: { type: 'string' },
      'outage-timeout-s': { type: 'string', default: '90' },
      'skip-outage': { type: 'boolean', default: false },
      only: { type: 'string' },
      'tether-build': { type: 'string', default: 'bundle' },
    },
  });
  const qps = positive('qps', values.qps, false);
  return {
    pods: positive('pods', values.pods, true),
    runs: positive('runs', values.runs, true),
    bind: oneOf('bind', values.bind, BINDS),
    qps,
    // virtual-kubelet's and Tether's defaults are 50 / 100: the burst follows a lifted qps alike.
    burst: values.burst === undefined ? Math.max(1, Math.round(qps * 2)) : positive('burst', values.burst, true),
    outageTimeoutMs: positive('outage-timeout-s', values['outage-timeout-s'], false) * 1000,
    skipOutage: values['skip-outage'],
    sides: values.only === undefined ? SIDES : [oneOf('only', values.only, SIDES)],
    tetherBuild: oneOf('tether-build', values['tether-build'], BUILDS),
  };
}
