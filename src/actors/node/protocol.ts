import type { Schedule } from '../../runtime/effectOutcome.js';
import type { Node, NodeStatus } from '../../adapters/kubernetes/model.js';
import type { NodeWatchEvent } from '../../adapters/kubernetes/watch.js';
import type { EventType } from '../../adapters/kubernetes/eventRecorder.js';
import type { NodeResources, ProviderNodeInfo } from '../../providers/provider.js';

/**
 * The node actor's vocabulary: the messages it handles, the effects it asks for, and its state.
 * One node actor owns one virtual node's Node object: registration, status and health.
 */

/** What the provider told us about the node, fetched at registration and on every status tick. */
export interface NodeFacts {
  readonly resources: NodeResources;
  readonly info: ProviderNodeInfo;
}

/** Readiness as announced to the rest of Tether (`onReadinessChange`) and written as Ready. */
export interface Readiness {
  readonly ready: boolean;
  /** CamelCase, as in the Ready condition: 'KubeletReady', 'ProviderUnreachable', … */
  readonly reason: string;
  readonly message: string;
}

export type NodeMsg =
  /** Time to ping the provider (self-scheduled every ping.intervalMs). */
  | { readonly type: 'node.ping-tick' }
  | { readonly type: 'node.pinged' }
  | { readonly type: 'node.ping-failed'; readonly error: string }
  /** Time to refresh the provider's facts and write status with a fresh heartbeat. */
  | { readonly type: 'node.status-tick' }
  /**
   * The Node exists as Tether wants it (created, or found and relabelled). `node` is the stored
   * object: its uid and the conditions already on it (whose transition times a restart keeps).
   */
  /** `facts` is undefined when an existing Node was adopted while the provider could not be reached. */
  | { readonly type: 'node.registered'; readonly node: Node; readonly facts: NodeFacts | undefined; readonly created: boolean }
  | { readonly type: 'node.register-failed'; readonly error: string; readonly retryAfterMs?: number }
  | { readonly type: 'node.retry-register' }
  | { readonly type: 'node.facts-fetched'; readonly facts: NodeFacts }
  | { readonly type: 'node.facts-fetch-failed'; readonly error: string }
  | { readonly type: 'node.status-written' }
  /** `gone`: the patch found no Node (someone deleted it), so it must be registered again. */
  | { readonly type: 'node.status-write-failed'; readonly error: string; readonly gone: boolean; readonly retryAfterMs?: number }
  | { readonly type: 'node.retry-status' }
  /**
   * What the Node watch saw. `node` undefined means it was deleted; `deletedUid` names the
   * deleted object, so a late deletion of an older Node (one Tether already replaced) is ignored.
   * See {@link nodeObserved} for the mapping from NodeWatch events.
   */
  | { readonly type: 'node.observed'; readonly node: Node | undefined; readonly deletedUid?: string }
  /** Stop pinging and writing status; delete the Node too if asked. The actor then idles. */
  | { readonly type: 'node.shutdown'; readonly deleteNode: boolean }
  | { readonly type: 'node.deleted' }
  | { readonly type: 'node.delete-failed'; readonly error: string; readonly retryAfterMs?: number }
  | { readonly type: 'node.retry-delete' };

export type NodeEffect =
  /** Get the Node; create it if absent, else patch the labels Tether owns. Reports 'node.registered'. */
  | { readonly type: 'register' }
  /** Ping the provider with the configured timeout. Reports 'node.pinged' or 'node.ping-failed'. */
  | { readonly type: 'ping' }
  /** Ask the provider for capacity and node info. Reports 'node.facts-fetched'. */
  | { readonly type: 'fetch-facts' }
  /** Strategic-merge patch of the Node's status (only Tether's own condition types). */
  | { readonly type: 'write-status'; readonly status: Partial<NodeStatus> }
  /** Tell Tether (the pod controller); the Event on the Node is an `event` effect of its own. */
  | { readonly type: 'announce'; readonly readiness: Readiness }
  | { readonly type: 'event'; readonly eventType: EventType; readonly reason: string; readonly note: string; readonly action: string; readonly uid: string | undefined }
  /** Tell the assembler the Node's uid (it forwards it to the lease actor). */
  | { readonly type: 'registered'; readonly uid: string }
  | { readonly type: 'delete-node' }
  /** The delayed self-message, run by the runtime (effectOutcome.ts). */
  | Schedule<NodeMsg>;

export type NodePhase =
  /** Pinging, registering and writing status. */
  | 'running'
  /** Shut down; deleting the Node if asked. */
  | 'shutting-down'
  /** Shut down and done; the actor only idles. */
  | 'stopped';

/** One API write loop (registration, status, deletion): one request in flight, retried with backoff. */
export interface WriteLoop {
  readonly inFlight: boolean;
  /** Asked for again while in flight: run once more when the current request ends. */
  readonly again: boolean;
  /** Consecutive failures, for the backoff. */
  readonly failures: number;
  /** A retry timer is pending: do not start another request until it fires. */
  readonly retryPending: boolean;
  readonly lastError: string | undefined;
}

export interface PingRecord {
  readonly at: number;
  readonly ok: boolean;
  readonly error: string | undefined;
}

export interface NodeState {
  readonly phase: NodePhase;
  /** The uid of the Node Tether last registered; undefined until then. */
  readonly uid: string | undefined;
  readonly registered: boolean;
  readonly registration: WriteLoop;
  readonly status: WriteLoop;
  readonly deletion: WriteLoop;
  /** The provider's facts, from registration and refreshed on status ticks. */
  readonly facts: NodeFacts | undefined;
  /** Undefined until the first ping answers: the first answer decides, thresholds apply after. */
  readonly readiness: Readiness | undefined;
  /** When Ready last changed (the Ready condition's lastTransitionTime). */
  readonly readySince: number;
  /** lastTransitionTime of the pressure conditions (they never change). */
  readonly pressureSince: number;
  /** Conditions found on the Node at registration: their transition times survive a restart. */
  readonly previousReady: { readonly status: string; readonly since: number } | undefined;
  readonly consecutiveFailures: number;
  readonly consecutiveSuccesses: number;
  readonly pingInFlight: boolean;
  readonly lastPing: PingRecord | undefined;
  /** The Node was deleted by someone: record an Event once it is back. */
  readonly recreating: boolean;
}

/** Maps a NodeWatch event to the message the node actor wants, if any. */
export function nodeObserved(event: NodeWatchEvent): NodeMsg | undefined {
  switch (event.type) {
    case 'added':
    case 'updated':
      return { type: 'node.observed', node: event.node };
    case 'deleted': {
      const uid = event.node.metadata?.uid;
      return uid === undefined ? { type: 'node.observed', node: undefined } : { type: 'node.observed', node: undefined, deletedUid: uid };
    }
    case 'synced':
    case 'error':
      return undefined;
  }
}
