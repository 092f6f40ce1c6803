/**
 * The pod controller's effects: routing to pod actors, and the orphan sweep's provider calls,
 * whose outcomes come back as messages (runtime/effectOutcome.ts): a classified provider failure
 * is a message, anything else (a provider bug) crashes the controller, which rebuilds its index.
 */
import type { PodWatch } from '../../adapters/kubernetes/watch.js';
import type { Logger } from '../../adapters/logger.js';
import { canListPodMarks, podMarksOf, type PodMarks } from '../../providers/podMarks.js';
import type { PodProvider } from '../../providers/provider.js';
import { hostUidMark, virtualNodeMark } from '../pod/annotations.js';
import type { ActorRef, EffectContext } from '../../runtime/behavior.js';
import { performWithSchedule, reportTo, type OwnEffect } from '../../runtime/effectOutcome.js';
import { providerFailure } from '../effectFailures.js';
import type { Shards } from '../../supervisors/shards.js';
import type { PodMsg } from '../pod/protocol.js';
import type { PodIdentity } from '../../lib/podIdentity.js';
import type { ControllerEffect, ControllerMsg } from './protocol.js';

export interface ControllerEffectDeps {
  readonly shards: Shards;
  /** Spawns the actor for one pod under the shards (behaviour and give-up hook chosen by the assembler). */
  readonly spawnPod: (key: PodIdentity) => void;
  readonly provider: PodProvider;
  readonly podWatch: PodWatch;
  readonly logger: Logger;
}

function podRef(shards: Shards, uid: string): (ActorRef<PodMsg> & { status?: string }) | undefined {
  return shards.shardFor(uid).child(uid) as (ActorRef<PodMsg> & { status?: string }) | undefined;
}

export function performControllerEffect(deps: ControllerEffectDeps, effect: ControllerEffect, ctx: EffectContext<ControllerMsg>): Promise<void> | void {
  return performWithSchedule(effect, ctx, (own) => performOwn(deps, own, ctx));
}

function performOwn(deps: ControllerEffectDeps, effect: OwnEffect<ControllerEffect, ControllerMsg>, ctx: EffectContext<ControllerMsg>): Promise<void> | void {
  switch (effect.type) {
    case 'spawn':
      if (!podRef(deps.shards, effect.key.uid)) deps.spawnPod(effect.key);
      return;
    case 'tell':
      podRef(deps.shards, effect.uid)?.tell(effect.msg);
      return;
    case 'broadcast':
      for (const uid of effect.uids) podRef(deps.shards, uid)?.tell(effect.msg);
      return;
    case 'release-failed':
      if (podRef(deps.shards, effect.uid)?.status === 'failed') deps.shards.release(effect.uid);
      return;
    case 'list-provider':
      return listProvider(deps, ctx);
    case 'delete-orphan':
      return deleteOrphan(deps, effect.orphan, ctx);
  }
}

/** The provider's pods and the host cache's uids at that moment; a classified failure waits for the next sweep. */
function listProvider(deps: ControllerEffectDeps, ctx: EffectContext<ControllerMsg>): Promise<void> {
  const hostUids = new Set<string>();
  for (const pod of deps.podWatch.list()) if (pod.metadata?.uid) hostUids.add(pod.metadata.uid);
  const provider = deps.provider;
  // The light listing when the provider has one; else whole pods, reduced at once.
  const list = async (signal: AbortSignal): Promise<readonly PodMarks[]> =>
    canListPodMarks(provider) ? provider.listPodMarks(signal) : (await provider.listPods(signal)).map(podMarksOf);
  return reportTo(ctx)(list, {
    classify: providerFailure,
    done: (pods) => ({ type: 'pods.provider-listed', pods, hostUids }),
    failed: ({ message }) => {
      deps.logger.warn('listing provider pods for the orphan sweep failed', { error: message });
      return { type: 'pods.provider-list-failed', message };
    },
  });
}

/**
 * Deletes one orphan: the provider's pod is read again (the listing was light, and time has passed)
 * and deleted only if it still carries the marks the sweep judged by. A classified failure is left
 * to the next sweep; anything else is a provider bug and crashes the controller.
 */
function deleteOrphan(deps: ControllerEffectDeps, orphan: PodMarks, ctx: EffectContext<ControllerMsg>): Promise<void> {
  const name = `${orphan.namespace}/${orphan.name}`;
  const work = async (signal: AbortSignal): Promise<boolean> => {
    const pod = await deps.provider.getPod(orphan.namespace, orphan.name, signal);
    if (!pod || !sameMarks(podMarksOf(pod), orphan)) return false;
    deps.logger.info('deleting a provider pod that no host pod owns', { pod: name });
    await deps.provider.deletePod(pod, signal);
    return true;
  };
  return reportTo(ctx)(work, {
    classify: providerFailure,
    done: (deleted) => (deleted ? { type: 'pods.orphan-deleted', pod: name } : undefined),
    failed: ({ message }) => {
      deps.logger.warn('deleting an orphaned provider pod failed; the next sweep tries again', { pod: name, error: message });
      return { type: 'pods.orphan-delete-failed', pod: name, message };
    },
  });
}

function sameMarks(a: PodMarks, b: PodMarks): boolean {
  return a.marks[hostUidMark] === b.marks[hostUidMark] && a.marks[virtualNodeMark] === b.marks[virtualNodeMark];
}
