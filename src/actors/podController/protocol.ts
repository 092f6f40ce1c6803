/**
 * The pod controller's protocol. One controller per virtual node routes what the host watch and
 * the provider say to the right pod actor (spawning it on first sight), fans the node's readiness
 * out to every pod, and removes provider pods that Tether created but no host pod owns any more.
 */
import type { Schedule } from '../../runtime/effectOutcome.js';
import type { PodWatchEvent } from '../../adapters/kubernetes/watch.js';
import type { PodMarks } from '../../providers/podMarks.js';
import type { PodNotification } from '../../providers/provider.js';
import type { NodeReadiness, PodMsg } from '../pod/protocol.js';
import type { PodIdentity } from '../../lib/podIdentity.js';
import type { PodIndex } from './podIndex.js';

export interface ControllerState {
  readonly index: PodIndex;
  readonly readiness: NodeReadiness;
  /** A full host list has succeeded since the last watch error: absence from the cache is meaningful. */
  readonly synced: boolean;
  readonly sweeps: number;
  readonly orphansDeleted: number;
}

export type ControllerMsg =
  | { readonly type: 'pods.watch'; readonly event: PodWatchEvent }
  | { readonly type: 'pods.notification'; readonly notification: PodNotification }
  | { readonly type: 'pods.node-readiness'; readonly readiness: NodeReadiness }
  | { readonly type: 'pods.sweep' }
  /** The provider's pods, light (identity and Tether's marks: all the sweep reads), and the host cache's uids. */
  | { readonly type: 'pods.provider-listed'; readonly pods: readonly PodMarks[]; readonly hostUids: ReadonlySet<string> }
  | { readonly type: 'pods.provider-list-failed'; readonly message: string }
  /** An orphan (`namespace/name`) was deleted at the provider. */
  | { readonly type: 'pods.orphan-deleted'; readonly pod: string }
  /** Deleting an orphan failed (classified): the next sweep finds it again. */
  | { readonly type: 'pods.orphan-delete-failed'; readonly pod: string; readonly message: string };

export type ControllerEffect =
  /** Start the pod's actor (it reads the host pod from the cache itself). */
  | { readonly type: 'spawn'; readonly key: PodIdentity }
  | { readonly type: 'tell'; readonly uid: string; readonly msg: PodMsg }
  | { readonly type: 'broadcast'; readonly uids: readonly string[]; readonly msg: PodMsg }
  /** Forget an actor that was given up (its pod is gone). */
  | { readonly type: 'release-failed'; readonly uid: string }
  /** List the provider's pods (and the host cache's uids at that moment) for the orphan sweep. */
  | { readonly type: 'list-provider' }
  /** Fetch the provider's pod and delete it, if it still carries the same marks. */
  | { readonly type: 'delete-orphan'; readonly orphan: PodMarks }
  /** The delayed self-message, run by the runtime (effectOutcome.ts). */
  | Schedule<ControllerMsg>;

