import type { Pod } from '../../adapters/kubernetes/model.js';
import type { PodWatchEvent } from '../../adapters/kubernetes/watch.js';
import type { PodMarks } from '../../providers/podMarks.js';
import type { PodNotification } from '../../providers/provider.js';
import type { Transition } from '../../runtime/behavior.js';
import { hostUidMark, virtualNodeMark } from '../pod/annotations.js';
import type { NodeReadiness } from '../pod/protocol.js';
import type { PodIdentity } from '../../lib/podIdentity.js';
import { PodIndex } from './podIndex.js';
import type { ControllerConfig } from './config.js';
import type { ControllerEffect, ControllerMsg, ControllerState } from './protocol.js';

type Next = Transition<ControllerState, ControllerEffect>;

export function keyOf(pod: Pod): PodIdentity | undefined {
  const { namespace, name, uid } = pod.metadata ?? {};
  return namespace && name && uid ? { namespace, name, uid } : undefined;
}

/**
 * The controller's start (and restart): index every pod already in the host cache and make sure
 * each has an actor. Pod actors survive a controller restart (they live under the shards); the
 * spawn effect only starts the ones that are missing.
 */
export function startController(config: ControllerConfig, cached: readonly Pod[], readiness: NodeReadiness, synced: boolean): Next {
  const index = new PodIndex();
  const effects: ControllerEffect[] = [];
  for (const pod of cached) {
    const key = keyOf(pod);
    if (!key) continue;
    index.add(key);
    effects.push({ type: 'spawn', key });
  }
  effects.push({ type: 'schedule', ms: config.sweepIntervalMs, msg: { type: 'pods.sweep' } });
  return { state: { index, readiness, synced, sweeps: 0, orphansDeleted: 0 }, effects };
}

export function decideController(config: ControllerConfig, state: ControllerState, msg: ControllerMsg): Next {
  switch (msg.type) {
    case 'pods.watch':
      return onWatch(state, msg.event);
    case 'pods.notification':
      return onNotification(state, msg.notification);
    case 'pods.node-readiness':
      return onReadiness(state, msg.readiness);
    case 'pods.sweep':
      return {
        state,
        effects: [
          ...(state.synced ? [{ type: 'list-provider' } as const] : []),
          { type: 'schedule', ms: config.sweepIntervalMs, msg: { type: 'pods.sweep' } },
        ],
      };
    case 'pods.provider-listed':
      return onProviderListed(config, state, msg.pods, msg.hostUids);
    case 'pods.provider-list-failed':
    case 'pods.orphan-deleted':
    case 'pods.orphan-delete-failed':
      return { state };
  }
}

function onWatch(state: ControllerState, event: PodWatchEvent): Next {
  switch (event.type) {
    case 'synced':
      // A fresh, complete list: now (and only now) is it safe to look for orphans.
      return { state: { ...state, synced: true }, effects: [{ type: 'list-provider' }] };
    case 'error':
      // Until the next successful list, absence from the cache proves nothing.
      return { state: { ...state, synced: false } };
    case 'added':
    case 'updated': {
      const key = keyOf(event.pod);
      if (!key) return { state };
      if (state.index.has(key.uid)) return { state, effects: [{ type: 'tell', uid: key.uid, msg: { type: 'pod.host-changed', pod: event.pod } }] };
      state.index.add(key);
      return { state, effects: [{ type: 'spawn', key }] };
    }
    case 'deleted': {
      const key = keyOf(event.pod);
      if (!key || !state.index.remove(key.uid)) return { state };
      return {
        state,
        effects: [
          { type: 'tell', uid: key.uid, msg: { type: 'pod.host-deleted' } },
          { type: 'release-failed', uid: key.uid },
        ],
      };
    }
  }
}

function onNotification(state: ControllerState, n: PodNotification): Next {
  if (n.type === 'status') {
    const uid = routeUid(state.index, n.pod);
    if (!uid || !n.pod.status) return { state };
    return { state, effects: [{ type: 'tell', uid, msg: { type: 'pod.provider-status', status: n.pod.status } }] };
  }
  // By uid only: a same-named pod is another pod (a StatefulSet's db-0 re-created), never this one.
  const uid = n.uid !== undefined && state.index.has(n.uid) ? n.uid : undefined;
  if (!uid) return { state };
  return { state, effects: [{ type: 'tell', uid, msg: { type: 'pod.provider-gone', reason: n.reason, message: n.message ?? 'the provider no longer has this pod' } }] };
}

/**
 * A provider pod's host uid: its ownership mark, else its own uid; never its name. A pod whose uid
 * has no actor is left to the orphan sweep.
 */
function routeUid(index: PodIndex, pod: Pod): string | undefined {
  const marked = pod.metadata?.annotations?.[hostUidMark];
  if (marked) return index.has(marked) ? marked : undefined;
  const uid = pod.metadata?.uid;
  return uid && index.has(uid) ? uid : undefined;
}

function onReadiness(state: ControllerState, readiness: NodeReadiness): Next {
  return {
    state: { ...state, readiness },
    effects: [{ type: 'broadcast', uids: [...state.index.uids()], msg: { type: 'pod.node-readiness', readiness } }],
  };
}

/**
 * Deletes provider pods that Tether created for this node and that no host pod owns. Guarded
 * twice: only after a successful host list (a failed list must never delete healthy pods), and
 * only pods carrying Tether's marks for this very node (pods Tether did not create are never touched).
 */
function onProviderListed(config: ControllerConfig, state: ControllerState, pods: readonly PodMarks[], hostUids: ReadonlySet<string>): Next {
  const next = { ...state, sweeps: state.sweeps + 1 };
  if (!state.synced) return { state: next };
  const orphans = pods.filter((pod) => isOrphan(config, state, pod, hostUids));
  return {
    state: { ...next, orphansDeleted: next.orphansDeleted + orphans.length },
    effects: orphans.map((orphan) => ({ type: 'delete-orphan', orphan })),
  };
}

/** Marked by Tether for this node, and no host pod (cached or with an actor) has its host uid. */
function isOrphan(config: ControllerConfig, state: ControllerState, pod: PodMarks, hostUids: ReadonlySet<string>): boolean {
  const hostUid = pod.marks[hostUidMark];
  return pod.marks[virtualNodeMark] === config.nodeName && hostUid !== undefined && !hostUids.has(hostUid) && !state.index.has(hostUid);
}
