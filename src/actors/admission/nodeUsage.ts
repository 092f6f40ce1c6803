/**
 * What the pods already admitted on a node take from it, as admission counts it: how many, their
 * summed requests (podRequests.ts), their host ports. Built from a list of pods (`usageOf`), or kept
 * as pods start and stop counting (`UsageTotal`), so an admission costs the asking pod's own
 * resources rather than a walk over every pod of the node (issue 28: at 1,000 pods that walk was
 * 0.4 s of the agent's CPU while creating them).
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import { podRequests, type Requests } from './podRequests.js';

export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

export interface NodeUsage {
  readonly pods: number;
  readonly requests: Requests;
  /** A function: only a pod asking for a host port (rare) needs them. */
  hostPorts(): readonly HostPort[];
}

export function hostPortsOf(pod: Pod): HostPort[] {
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
  return containers.flatMap((c) =>
    (c.ports ?? []).filter((p) => (p.hostPort ?? 0) > 0).map((p) => ({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol ?? 'TCP', port: p.hostPort ?? 0 })),
  );
}

function addInto(sums: Record<string, number>, requests: Requests, sign: 1 | -1): void {
  // for-in rather than Object.entries: this runs for every pod that starts or stops counting.
  for (const name in requests) sums[name] = (sums[name] ?? 0) + sign * (requests[name] as number);
}

/** Every amount is an integer (podRequests.ts); past 2^53 a sum taken apart again would drift. */
function allSafe(sums: Requests): boolean {
  for (const name in sums) if (!Number.isSafeInteger(sums[name])) return false;
  return true;
}

/** The usage of `pods`, summed afresh. */
export function usageOf(pods: readonly Pod[]): NodeUsage {
  const requests: Record<string, number> = {};
  for (const p of pods) addInto(requests, podRequests(p), 1);
  return { pods: pods.length, requests, hostPorts: () => pods.flatMap(hostPortsOf) };
}

/** One pod's share, kept with the pod object it was taken from. */
interface Share {
  readonly pod: Pod;
  readonly requests: Requests;
  readonly hostPorts: readonly HostPort[];
}

/**
 * The usage of a changing set of pods, keyed by UID. Putting a pod again (a newer object of it)
 * replaces its share. Sums of safe integers are exact; once one passes 2^53 (a hostile pod asking
 * for 1e18 of something) it is summed afresh from the pods while it does, so no rounding error
 * stays behind once that pod is gone.
 */
export class UsageTotal {
  private readonly shares = new Map<string, Share>();
  /** The pods with a host port (rare): only their ports are walked for a pod that asks for one. */
  private readonly withHostPorts = new Set<string>();
  private sums: Record<string, number> = {};
  private exact = true;

  get size(): number {
    return this.shares.size;
  }

  put(uid: string, pod: Pod): void {
    const old = this.shares.get(uid);
    if (old?.pod === pod) return;
    // Taken afresh for every newer object: a resize changes the spec, and an API server before
    // 1.33 does not bump the generation for it (podRequests is once per object).
    if (old) this.take(old.requests, -1);
    const share: Share = { pod, requests: podRequests(pod), hostPorts: hostPortsOf(pod) };
    this.shares.set(uid, share);
    this.take(share.requests, 1);
    if (share.hostPorts.length > 0) this.withHostPorts.add(uid);
    else this.withHostPorts.delete(uid);
  }

  remove(uid: string): void {
    const old = this.shares.get(uid);
    if (!old) return;
    this.shares.delete(uid);
    this.withHostPorts.delete(uid);
    this.take(old.requests, -1);
  }

  /** The usage of every pod but `except` (the pod asking, if it already counts). */
  usage(except: string): NodeUsage {
    if (!this.exact) this.resum();
    const mine = this.shares.get(except);
    // Still past 2^53: nothing taken away from the sums would be exact either.
    if (!this.exact) return usageOf([...this.shares].filter(([uid]) => uid !== except).map(([, share]) => share.pod));
    let requests: Requests = this.sums;
    if (mine) {
      const without = { ...this.sums };
      addInto(without, mine.requests, -1);
      requests = without;
    }
    return {
      pods: this.shares.size - (mine ? 1 : 0),
      requests,
      hostPorts: () => [...this.withHostPorts].flatMap((uid) => (uid === except ? [] : this.shares.get(uid)?.hostPorts ?? [])),
    };
  }

  private take(requests: Requests, sign: 1 | -1): void {
    if (!this.exact) return;
    addInto(this.sums, requests, sign);
    this.exact = allSafe(this.sums);
  }

  private resum(): void {
    const sums: Record<string, number> = {};
    for (const share of this.shares.values()) addInto(sums, share.requests, 1);
    this.sums = sums;
    this.exact = allSafe(sums);
  }
}
