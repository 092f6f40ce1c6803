import type { PodWatch } from '../../adapters/kubernetes/watch.js';
import type { Logger } from '../../adapters/logger.js';
import { canListPodMarks, podMarksOf, type PodMarks } from '../../providers/podMarks.js';
import type { PodProvider } from '../../providers/provider.js';
import { hostUidMark, virtualNodeMark } from '../pod/annotations.js';
import type { ActorRef, EffectContext } from '../../runtime/behavior.js';
import type { Shards } from '../../supervisors/shards.js';
import type { PodMsg } from '../pod/protocol.js';
import type { PodKey } from './podIndex.js';
import type { ControllerEffect, ControllerMsg } from './protocol.js';

export interface ControllerEffectDeps {
  readonly shards: Shards;
  /** Spawns the actor for one pod under the shards (behaviour and give-up hook chosen by the assembler). */
  readonly spawnPod: (key: PodKey) => void;
  readonly provider: PodProvider;
  readonly podWatch: PodWatch;
  readonly logger: Logger;
}

function podRef(shards: Shards, uid: string): (ActorRef<PodMsg> & { status?: string }) | undefined {
  return shards.shardFor(uid).child(uid) as (ActorRef<PodMsg> & { status?: string }) | undefined;
}

export function performControllerEffect(deps: ControllerEffectDeps, effect: ControllerEffect, ctx: EffectContext<ControllerMsg>): Promise<void> | void {
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
    case 'schedule':
      ctx.schedule(effect.ms, effect.msg);
      return;
  }
}

async function listProvider(deps: ControllerEffectDeps, ctx: EffectContext<ControllerMsg>): Promise<void> {
  const hostUids = new Set<string>();
  for (const pod of deps.podWatch.list()) if (pod.metadata?.uid) hostUids.add(pod.metadata.uid);
  try {
    const provider = deps.provider;
    // The light listing when the provider has one; else whole pods, reduced at once.
    const pods = canListPodMarks(provider) ? await provider.listPodMarks(ctx.signal) : (await provider.listPods(ctx.signal)).map(podMarksOf);
    ctx.self.tell({ type: 'pods.provider-listed', pods, hostUids });
  } catch (error) {
    deps.logger.warn('listing provider pods for the orphan sweep failed', { error: String(error) });
    ctx.self.tell({ type: 'pods.provider-list-failed', message: String(error) });
  }
}

/**
 * Deletes one orphan: the provider's pod is read again (the listing was light, and time has passed)
 * and deleted only if it still carries the marks the sweep judged by.
 */
async function deleteOrphan(deps: ControllerEffectDeps, orphan: PodMarks, ctx: EffectContext<ControllerMsg>): Promise<void> {
  const name = `${orphan.namespace}/${orphan.name}`;
  try {
    const pod = await deps.provider.getPod(orphan.namespace, orphan.name, ctx.signal);
    if (!pod || !sameMarks(podMarksOf(pod), orphan)) return;
    deps.logger.info('deleting a provider pod that no host pod owns', { pod: name });
    await deps.provider.deletePod(pod, ctx.signal);
  } catch (error) {
    deps.logger.warn('deleting an orphaned provider pod failed; the next sweep tries again', { pod: name, error: String(error) });
  }
}

function sameMarks(a: PodMarks, b: PodMarks): boolean {
  return a.marks[hostUidMark] === b.marks[hostUidMark] && a.marks[virtualNodeMark] === b.marks[virtualNodeMark];
}
