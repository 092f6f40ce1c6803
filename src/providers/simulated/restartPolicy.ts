/**
 * The kubelet's restart rules and pod phase, as pure functions: whether a container that exited
 * runs again (the pod's restartPolicy; a sidecar, an init container with restartPolicy Always,
 * always does), and the phase the statuses add up to (kubelet_pods.go getPhase, without the
 * per-container restart rules).
 */
import type { ContainerStatus, PodSpec } from '../../adapters/kubernetes/model.js';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
type Container = PodSpec['containers'][number];

export function podRestartPolicy(spec: PodSpec | undefined): RestartPolicy {
  const policy = spec?.restartPolicy;
  return policy === 'OnFailure' || policy === 'Never' ? policy : 'Always';
}

/** An init container that keeps running beside the others (`restartPolicy: Always`). */
export function isSidecar(container: Pick<Container, 'restartPolicy'>): boolean {
  return container.restartPolicy === 'Always';
}

/** The containers that run beside each other, which exec, probes and hooks reach: the sidecars and the main ones. */
export function longRunningContainers(spec: PodSpec | undefined): Container[] {
  return [...(spec?.initContainers ?? []).filter(isSidecar), ...(spec?.containers ?? [])];
}

/** Whether a container that exited with `exitCode` is started again. */
export function shouldRestart(policy: RestartPolicy, exitCode: number): boolean {
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

/** How an instance came to end: by itself, or killed for a failed liveness or startup probe. */
export type ExitCause = 'exited' | 'probeKilled';

/**
 * Whether the container runs again after its instance ended. A sidecar always does; a regular
 * init container only after a failure and never under Never; a main container by the policy and
 * its exit code, except when killed for its probe: computePodActions then puts it in
 * ContainersToStart in the same sync whenever the policy is not Never, whatever it exits with.
 */
export function restartsAfterExit(role: 'init' | 'sidecar' | 'main', policy: RestartPolicy, exitCode: number, cause: ExitCause): boolean {
  if (role === 'sidecar') return true;
  if (role === 'init') return exitCode !== 0 && policy !== 'Never';
  return cause === 'probeKilled' ? policy !== 'Never' : shouldRestart(policy, exitCode);
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

function exitCodeOf(status: ContainerStatus | undefined): number | undefined {
  return status?.state?.terminated?.exitCode ?? (status?.state?.waiting ? status.lastState?.terminated?.exitCode : undefined);
}

/**
 * getPhase: Pending until the regular init containers are done and no container waits for its
 * first start. `restarting` names main containers waiting to start again whatever their last exit
 * code (killed for a probe): they count as restartable, so an OnFailure pod whose container
 * exited 0 after a probe kill stays Running. (The kubelet's getPhase judges by the exit code only,
 * which can fail such a pod while it backs off; computePodActions meant it to run again.)
 */
export function podPhase(spec: PodSpec | undefined, inits: readonly ContainerStatus[], mains: readonly ContainerStatus[], podIsTerminal: boolean, restarting: ReadonlySet<string> = new Set()): PodPhase {
  const policy = podRestartPolicy(spec);
  const find = (list: readonly ContainerStatus[], name: string): ContainerStatus | undefined => list.find((s) => s.name === name);
  let pendingInit = 0;
  let failedInitNotRestartable = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let stoppedNotRestartable = 0;
  let succeeded = 0;
  for (const c of spec?.initContainers ?? []) {
    const status = find(inits, c.name);
    if (isSidecar(c)) {
      if (status?.state?.running) running++;
      else if (!status?.state?.terminated && !status?.lastState?.terminated) pendingInit++;
      continue;
    }
    const code = exitCodeOf(status);
    if (code === undefined || status?.state?.running) pendingInit++;
    else if (code !== 0 && !shouldRestart(policy, code)) failedInitNotRestartable++;
  }
  for (const c of spec?.containers ?? []) {
    const status = find(mains, c.name);
    if (status?.state?.running) {
      running++;
      continue;
    }
    const code = exitCodeOf(status);
    if (code === undefined) {
      waiting++;
      continue;
    }
    stopped++;
    if (!shouldRestart(policy, code) && !restarting.has(c.name)) stoppedNotRestartable++;
    if (code === 0 && status?.state?.terminated) succeeded++;
  }
  if (failedInitNotRestartable > 0) return 'Failed';
  if (pendingInit > 0 || waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (podIsTerminal || stopped === stoppedNotRestartable) return stopped === succeeded ? 'Succeeded' : 'Failed';
  return 'Running';
}
