/**
 * The node's admitted pods: the set the kubelet keeps in its pod manager, owned by the virtual
 * node (one per node, outliving pod actor restarts) and asked by each pod actor before it creates
 * its pod. A question and its recording happen in one synchronous call, so two pods asking at once
 * are judged one after the other, each against the other if it was admitted first.
 *
 * The pods counted against a new one: those of the node in the host cache, not terminal, that
 * were admitted here or that the host shows Running (admitted by an earlier process: after a
 * restart, running pods are taken as they are, never judged again).
 */
import type { Node, Pod } from '../../adapters/kubernetes/model.js';
import { admit, type AdmissionPolicy, type Verdict } from './admit.js';
import { DAEMON_SET_REJECTED, daemonSetWarning } from './daemonSets.js';

export interface AdmissionSources {
  /** The node's pods in the host watch cache. */
  readonly pods: () => readonly Pod[];
  /** The node's Node object as the host has it (undefined before the node watch has listed it). */
  readonly node: () => Node | undefined;
  readonly policy: AdmissionPolicy;
}

const terminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

export class AdmittedPods {
  private readonly admitted = new Set<string>();
  /** DaemonSets (uids) already warned that this node rejects their pods: once each, not per re-created pod. */
  private readonly warned = new Set<string>();

  constructor(private readonly sources: AdmissionSources) {}

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
    const others = this.counted(uid);
    const verdict = admit(node, others, pod, this.sources.policy);
    if (verdict.admit) this.admitted.add(uid);
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
    const uid = pod.metadata?.uid;
    if (uid) this.admitted.add(uid);
  }

  /** How many pods count against a new one now (for tests and the actor tree). */
  size(): number {
    return this.counted('').length;
  }

  private counted(except: string): Pod[] {
    const pods = this.sources.pods();
    const out: Pod[] = [];
    // Admitted pods seen on the host: when that is all of them, none is gone and there is nothing
    // to forget (the common case: no set of every live uid to build per admission).
    let admittedSeen = 0;
    for (const p of pods) {
      const uid = p.metadata?.uid;
      if (!uid) continue;
      const isAdmitted = this.admitted.has(uid);
      if (isAdmitted) admittedSeen++;
      if (uid === except || terminal(p)) continue;
      if (isAdmitted || p.status?.phase === 'Running') out.push(p);
    }
    if (admittedSeen < this.admitted.size) this.forgetGone(pods, except);
    return out;
  }

  /** Forget pods gone from the host: their resources are free again. */
  private forgetGone(pods: readonly Pod[], except: string): void {
    const live = new Set<string>();
    for (const p of pods) if (p.metadata?.uid) live.add(p.metadata.uid);
    for (const uid of this.admitted) if (!live.has(uid) && uid !== except) this.admitted.delete(uid);
  }
}
