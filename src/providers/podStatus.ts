/**
 * Pure builders for the parts of a pod status that every provider reports the same way:
 * conditions and the terminal status at the end of a pod. The provider never sets PodScheduled;
 * that condition belongs to the scheduler.
 */
import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../adapters/kubernetes/model.js';
import { definedOnly } from '../lib/defaults.js';

export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

export function podCondition(type: string, ok: boolean, at: Date, reason?: string): PodCondition {
  return {
    type,
    status: ok ? 'True' : 'False',
    lastTransitionTime: at,
    ...definedOnly({ reason }),
  };
}

/**
 * Keeps the previous condition (and its lastTransitionTime) when its status did not change, as
 * the kubelet does, so an unchanged pod produces an unchanged status.
 */
export function mergeConditions(previous: readonly PodCondition[] | undefined, next: readonly PodCondition[]): PodCondition[] {
  return next.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    return before !== undefined && before.status === c.status && before.reason === c.reason ? before : c;
  });
}

export interface TerminationOptions {
  readonly now: Date;
  /** Exit code of containers that were running when the pod ended. */
  readonly exitCode: number;
  /** Reason of containers that were running when the pod ended: 'Completed' (0) or 'Error'. */
  readonly reason: string;
}

function terminatedContainer(spec: { name: string; image?: string }, before: ContainerStatus | undefined, opts: TerminationOptions): ContainerStatus {
  const base: ContainerStatus = {
    name: spec.name,
    image: before?.image ?? spec.image ?? '',
    imageID: before?.imageID ?? '',
    ready: false,
    started: false,
    restartCount: before?.restartCount ?? 0,
    ...definedOnly({ containerID: before?.containerID, lastState: before?.lastState }),
  };
  if (before?.state?.terminated !== undefined) return { ...base, state: { terminated: before.state.terminated } };
  if (before?.state?.running !== undefined) {
    return {
      ...base,
      state: {
        terminated: {
          exitCode: opts.exitCode,
          reason: opts.reason,
          startedAt: before.state.running.startedAt,
          finishedAt: opts.now,
          ...definedOnly({ containerID: before.containerID }),
        },
      },
    };
  }
  // Never started: what the kubelet reports for a container it cannot find when the pod ends.
  return {
    ...base,
    state: {
      terminated: {
        exitCode: 137,
        reason: 'ContainerStatusUnknown',
        message: 'The container could not be located when the pod was terminated',
        finishedAt: opts.now,
      },
    },
  };
}

/**
 * The status of a pod whose containers have all stopped: running containers end with the given
 * exit code, never-started ones as ContainerStatusUnknown (137). Phase is Succeeded when every
 * container exited 0, else Failed. Addresses and startTime are kept from `previous`.
 */
export function terminatedStatus(pod: Pod, previous: PodStatus | undefined, opts: TerminationOptions): PodStatus {
  const containerStatuses = (pod.spec?.containers ?? []).map((c) =>
    terminatedContainer(c, previous?.containerStatuses?.find((s) => s.name === c.name), opts),
  );
  const succeeded = containerStatuses.every((s) => s.state?.terminated?.exitCode === 0);
  const initialized = previous?.conditions?.find((c) => c.type === 'Initialized')?.status === 'True';
  const conditions = mergeConditions(previous?.conditions, [
    podCondition('PodReadyToStartContainers', false, opts.now),
    podCondition('Initialized', initialized, opts.now, initialized ? undefined : 'PodCompleted'),
    podCondition('ContainersReady', false, opts.now, 'PodCompleted'),
    podCondition('Ready', false, opts.now, 'PodCompleted'),
  ]);
  return {
    ...(previous ?? {}),
    phase: succeeded ? 'Succeeded' : 'Failed',
    conditions,
    containerStatuses,
  };
}
