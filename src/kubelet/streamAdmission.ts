/**
 * Who may open one more exec, attach or port-forward session on a node: at most `maxPerNode`
 * sessions at once, `maxPerUser` per authenticated user and `maxPerPod` per target pod. The node's
 * slot is taken when the upgrade arrives, before any check, so a burst cannot overshoot the cap
 * while reviews are in flight; the user's and the pod's are claimed once the checks have named
 * them. A ticket holds all three until `release()`, which is idempotent: the caller releases on
 * every path (refused, the client gone during the checks, the session ended) and a second call
 * is harmless. Counts of users and pods are dropped at zero, so memory follows live sessions.
 */

export interface StreamLimits {
  readonly maxPerNode: number;
  readonly maxPerUser: number;
  readonly maxPerPod: number;
}

/**
 * 64 per node (Tether's cap before there were others); 16 per user and per pod: a quarter of the
 * node, so no single user or pod can take it all, and more than an interactive user holds.
 */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxPerNode: 64, maxPerUser: 16, maxPerPod: 16 };

/** Seconds a client refused for a cap is told to wait (`Retry-After`); a slot frees when some session ends. */
export const STREAM_RETRY_AFTER_SECONDS = 10;

export type AdmissionScope = 'node' | 'user' | 'pod';

export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly scope: AdmissionScope; readonly limit: number; readonly message: string };

export interface StreamTicket {
  /**
   * Counts the session against `user` (undefined: not counted per user) and `pod`; refused,
   * nothing is claimed (the node slot stays until `release`).
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
  private readonly users = new Map<string, number>();
  private readonly pods = new Map<string, number>();

  constructor(readonly nodeName: string, readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS) {}

  /** Sessions admitted and not yet released (what the node cap counts). */
  get active(): number {
    return this.node;
  }

  /** Sessions held by `user`, and to `pod`, now. */
  heldBy(user: string): number {
    return this.users.get(user) ?? 0;
  }

  heldOn(pod: string): number {
    return this.pods.get(pod) ?? 0;
  }

  /** Takes a node slot, or says why not. */
  enter(): Entry {
    const max = this.limits.maxPerNode;
    if (this.node >= max) {
      return { admitted: false, scope: 'node', limit: max, message: `too many concurrent streams on node ${this.nodeName} (at most ${max}); try again later` };
    }
    this.node++;
    let claimed: { user: string | undefined; pod: string } | undefined;
    let released = false;
    return {
      admitted: true,
      ticket: {
        claim: (user, pod) => {
          if (released || claimed) throw new Error('a stream ticket is claimed once, before it is released');
          const { maxPerUser, maxPerPod } = this.limits;
          if (user !== undefined && this.heldBy(user) >= maxPerUser) {
            return { admitted: false, scope: 'user', limit: maxPerUser, message: `too many concurrent streams for user ${user} on node ${this.nodeName} (at most ${maxPerUser}); try again later` };
          }
          if (this.heldOn(pod) >= maxPerPod) {
            return { admitted: false, scope: 'pod', limit: maxPerPod, message: `too many concurrent streams to pod ${pod} (at most ${maxPerPod}); try again later` };
          }
          if (user !== undefined) increment(this.users, user);
          increment(this.pods, pod);
          claimed = { user, pod };
          return { admitted: true };
        },
        release: () => {
          if (released) return;
          released = true;
          this.node--;
          if (claimed?.user !== undefined) decrement(this.users, claimed.user);
          if (claimed) decrement(this.pods, claimed.pod);
        },
      },
    };
  }
}
