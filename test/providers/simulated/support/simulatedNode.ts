/**
 * What the simulated provider's runtime tests share: a pod in namespace `ns` on node `n`, and
 * time moved on the manual clock in steps with the shell's promises run between them.
 */
import type { Pod, PodSpec } from '../../../../src/adapters/kubernetes/model.js';
import type { ManualClock } from '../../../support/manualClock.js';
import { drain } from '../../../support/until.js';

export type Container = PodSpec['containers'][number];

/** Pod `name` in `ns` on node `n`, uid `uid-<name>`. */
export function simulatedPod(name: string, containers: Container[], spec: Partial<PodSpec> = {}, annotations?: Record<string, string>): Pod {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(annotations ? { annotations } : {}) }, spec: { nodeName: 'n', containers, ...spec } };
}

/** Moves the clock by `ms` in steps of `step`, draining `turns` microtask turns after each. */
export async function passTime(clock: ManualClock, ms: number, step: number, turns: number): Promise<void> {
  await drain(3);
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done));
    await drain(turns);
  }
}
