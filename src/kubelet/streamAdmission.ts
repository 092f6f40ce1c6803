/**
 * Who may open one more exec, attach or port-forward session on a node: at most `maxPerNode`
 * sessions at once, `maxPerUser` per authenticated user and `maxPerPod` per target pod. Two
 * stages, so a stranger never holds what a user needs: an upgrade that arrives takes a *pending*
 * place (at most `maxPending` on the node and `maxPendingPerSource` from one address) while it is
 * authenticated; the node's, user's and pod's slots are claimed together, synchronously, once
 * the checks have named the user and the pod, so a burst cannot overshoot the caps either. A
 * ticket holds its place until `release()`, which is idempotent: the caller releases on every
 * path (refused, the client gone during the checks, the session ended). Counts of sources, users
 * and pods are dropped at zero, so memory follows live requests.
 */

export interface StreamLimits {
  readonly maxPerNode: number;
  readonly maxPerUser: number;
  readonly maxPerPod: number;
  /** Upgrades being checked at once (before they are sessions); default 4x maxPerNode. */
  readonly maxPending?: number;
  /** Of those, from one source address; default maxPerNode (the API server proxies every user's). */
  readonly maxPendingPerSource?: number;
}

/**
 * 64 per node (Tether's cap before there were others); 16 per user and per pod: a quarter of the
 * node, so no single user or pod can take it all, and more than an interactive user holds.
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxPerNode: 64, maxPerUser: 16, maxPerPod: 16 };

/** Seconds a client refused for a cap is told to wait (`Retry-After`); a slot frees when some session ends. */
export const STREAM_RETRY_AFTER_SECONDS = 10;

export type AdmissionScope = 'node' | 'user' | 'pod' | 'pending' | 'source';

export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly scope: AdmissionScope; readonly limit: number; readonly message: string };

export interface StreamTicket {
  /**
   * Counts the session against the node, `user` (undefined: not counted per user) and `pod`;
   * refused, nothing is claimed (the pending place stays until `release`).
   */
  claim(user: string | undefined, pod: string): Admission;
  release(): void;
}

export type Entry = { readonly admitted: true; readonly ticket: StreamTicket } | Extract<Admission, { admitted: false }>;

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

export class StreamAdmission {
  private node = 0;
  private pending = 0;
  private readonly sources = new Map<string, number>();
  private readonly users = new Map<string, number>();
  private readonly pods = new Map<string, number>();
  private readonly maxPending: number;
  private readonly maxPendingPerSource: number;

  constructor(readonly nodeName: string, readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS) {
    this.maxPending = limits.maxPending ?? limits.maxPerNode * 4;
    this.maxPendingPerSource = limits.maxPendingPerSource ?? limits.maxPerNode;
  }

  /** Sessions admitted and upgrades being checked, not yet released. */
  get active(): number {
    return this.node + this.pending;
  }

  /** Sessions admitted (what the node cap counts). */
  get sessions(): number {
    return this.node;
  }

  /** Sessions held by `user`, and to `pod`, now. */
  heldBy(user: string): number {
    return this.users.get(user) ?? 0;
  }

  heldOn(pod: string): number {
    return this.pods.get(pod) ?? 0;
  }

  /** Takes a pending place for an upgrade from `source` while it is checked, or says why not. */
  enter(source = 'unknown'): Entry {
    if (this.pending >= this.maxPending) {
      return { admitted: false, scope: 'pending', limit: this.maxPending, message: `too many stream requests being checked on node ${this.nodeName} (at most ${this.maxPending}); try again later` };
    }
    if ((this.sources.get(source) ?? 0) >= this.maxPendingPerSource) {
      return { admitted: false, scope: 'source', limit: this.maxPendingPerSource, message: `too many stream requests from ${source} being checked on node ${this.nodeName} (at most ${this.maxPendingPerSource}); try again later` };
    }
    this.pending++;
    increment(this.sources, source);
    let waiting = true;
    let claimed: { user: string | undefined; pod: string } | undefined;
    let released = false;
    const leavePending = (): void => {
      if (!waiting) return;
      waiting = false;
      this.pending--;
      decrement(this.sources, source);
    };
    return {
      admitted: true,
      ticket: {
        claim: (user, pod) => {
          if (released || claimed) throw new Error('a stream ticket is claimed once, before it is released');
          const { maxPerNode, maxPerUser, maxPerPod } = this.limits;
          if (this.node >= maxPerNode) {
            return { admitted: false, scope: 'node', limit: maxPerNode, message: `too many concurrent streams on node ${this.nodeName} (at most ${maxPerNode}); try again later` };
          }
          if (user !== undefined && this.heldBy(user) >= maxPerUser) {
            return { admitted: false, scope: 'user', limit: maxPerUser, message: `too many concurrent streams for user ${user} on node ${this.nodeName} (at most ${maxPerUser}); try again later` };
          }
          if (this.heldOn(pod) >= maxPerPod) {
            return { admitted: false, scope: 'pod', limit: maxPerPod, message: `too many concurrent streams to pod ${pod} (at most ${maxPerPod}); try again later` };
          }
          leavePending();
          this.node++;
          if (user !== undefined) increment(this.users, user);
          increment(this.pods, pod);
          claimed = { user, pod };
          return { admitted: true };
        },
        release: () => {
          if (released) return;
          released = true;
          leavePending();
          if (!claimed) return;
          this.node--;
          if (claimed.user !== undefined) decrement(this.users, claimed.user);
          decrement(this.pods, claimed.pod);
        },
      },
    };
  }
}
