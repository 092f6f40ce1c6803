/**
 * The node's admitted pods: the set the kubelet keeps in its pod manager, owned by the virtual
 * node (one per node, outliving pod actor restarts) and asked by each pod actor before it creates
 * its pod. A question and its recording happen in one synchronous call, so two pods asking at once
 * are judged one after the other, each against the other if it was admitted first.
 *
 * The pods counted against a new one: those of the node in the host cache, not terminal, that
 * were admitted here or that the host shows Running (admitted by an earlier process: after a
 * restart, running pods are taken as they are, never judged again). Kept as the host cache changes
 * (`observe`, told every event of the node's pod watch), so an admission does not walk the node's
 * pods (nodeUsage.ts).
 */
import type { Node, Pod } from '../../adapters/kubernetes/model.js';
import type { PodWatchEvent } from '../../adapters/kubernetes/watch.js';
import { admit, type AdmissionPolicy, type Verdict } from './admit.js';
import { DAEMON_SET_REJECTED, daemonSetWarning } from './daemonSets.js';
import { UsageTotal } from './nodeUsage.js';

export interface AdmissionSources {
  /** The node's pods in the host watch cache, read once, when the ledger is made. */
  readonly pods: () => readonly Pod[];
  /** One pod of the node in the host watch cache. */
  readonly pod: (namespace: string, name: string) => Pod | undefined;
  /** The node's Node object as the host has it (undefined before the node watch has listed it). */
  readonly node: () => Node | undefined;
  readonly policy: AdmissionPolicy;
}

const terminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

export class AdmittedPods {
  /** UIDs admitted here or found running at the provider; forgotten when the host deletes the pod. */
  private readonly admitted = new Set<string>();
  /** The pods that count against a new one, as the host cache has them. */
  private readonly counted = new UsageTotal();
  /** DaemonSets (uids) already warned that this node rejects their pods: once each, not per re-created pod. */
  private readonly warned = new Set<string>();

  constructor(private readonly sources: AdmissionSources) {
    for (const pod of sources.pods()) this.recount(pod);
  }

  /** Every event of the node's pod watch, as it happens (the cache already reflects it). */
  observe(event: PodWatchEvent): void {
    if (event.type === 'added' || event.type === 'updated') this.recount(event.pod);
    else if (event.type === 'deleted') {
      const uid = event.pod.metadata?.uid;
      if (!uid) return;
      // Gone from the host: its resources are free again.
      this.admitted.delete(uid);
      this.counted.remove(uid);
    }
  }

  /**
   * Judges `pod` against the pods admitted so far and, if it fits, counts it from now on.
   * Undefined while the Node is not known yet (the kubelet falls back to the Node it would
   * register; Tether waits for the one the API server has, labels and allocatable included).
   */
  admit(pod: Pod): Verdict | undefined {
    const uid = pod.metadata?.uid ?? '';
    if (this.admitted.has(uid)) return { admit: true };
    const node = this.sources.node();
    if (!node) return undefined;
    const verdict = admit(node, this.counted.usage(uid), pod, this.sources.policy);
    if (verdict.admit) this.record(pod);
    else if (verdict.reason === DAEMON_SET_REJECTED) {
      const ownerWarning = daemonSetWarning(pod, node.metadata?.name ?? '');
      if (ownerWarning && !this.warned.has(ownerWarning.uid)) {
        this.warned.add(ownerWarning.uid);
        return { ...verdict, ownerWarning };
      }
    }
    return verdict;
  }

  /** A pod found running at the provider: counted as it is. */
  recordRunning(pod: Pod): void {
    this.record(pod);
  }

  /** How many pods count against a new one now (for tests and the actor tree). */
  size(): number {
    return this.counted.size;
  }

  /**
   * Counted from now on, as the host cache has it. A pod the cache no longer has is not recorded:
   * its deletion has been observed already, and nothing would ever forget it.
   */
  private record(pod: Pod): void {
    const uid = pod.metadata?.uid;
    const cached = this.sources.pod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    if (!uid || cached?.metadata?.uid !== uid) return;
    this.admitted.add(uid);
    this.recount(cached);
  }

  private recount(pod: Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    if (!terminal(pod) && (this.admitted.has(uid) || pod.status?.phase === 'Running')) this.counted.put(uid, pod);
    else this.counted.remove(uid);
  }
}
