/**
 * One reflected copy per host cluster and remote namespace: the virtual nodes of one host cluster
 * map a host namespace to the same remote namespace, and each copy is written by the node its
 * `virtual-node` mark names. This decides, for one namespace's pass, which wanted copies another
 * node of this host cluster holds, so the pass leaves them out of its writes: one whose node still
 * has pods of the namespace there is left to it, silently (a sibling is not a foreign object: no
 * `ReflectionNameTaken`); one whose node has none (it stopped, or its pods moved to this node) is
 * adopted in place by a node that has pods there itself (serviceWriter.ts `adopt`: only the mark changes, the uid and ClusterIP stay),
 * and written at the next pass, which the copies' watch brings with the relabel's event.
 */
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import { hostNamespaceAnnotation, virtualNodeLabel } from '../marks.js';
import type { Reflected } from './copyDigests.js';
import { objectKey, type DesiredObject, type ReflectedKind } from './servicePlan.js';
import type { ReflectionWriter } from './serviceWriter.js';

export interface SiblingsInput {
  readonly namespace: string;
  readonly remoteNamespace: string;
  readonly desired: readonly DesiredObject[];
  /** The copy of that kind and name in the remote namespace as the watch of this host cluster's copies holds it. */
  readonly copyOf: (kind: ReflectedKind, name: string) => Reflected | undefined;
  readonly writer: ReflectionWriter;
  readonly log: KubeLog;
  readonly stopped: () => boolean;
}

/** The object keys of the wanted copies a sibling node holds (adopting those whose node has no pods there). */
export async function siblingsHeld(input: SiblingsInput): Promise<Set<string>> {
  const { namespace, remoteNamespace, writer } = input;
  const held = new Set<string>();
  let withPods: Promise<ReadonlySet<string>> | undefined;
  for (const d of input.desired) {
    const copy = input.copyOf(d.kind, d.name);
    if (!copy || !writer.isSibling(copy) || copy.metadata?.annotations?.[hostNamespaceAnnotation] !== namespace) continue;
    held.add(objectKey(d.kind, d.name));
    // One list of the remote pods per pass, and only when a sibling holds something.
    const nodes = await (withPods ??= writer.nodesWithPods(remoteNamespace, namespace).then((n) => new Set(n)));
    // Only a node with pods of its own there takes a copy over: two nodes both lingering after
    // their pods went would otherwise relabel it back and forth, each relabel waking the other.
    if (input.stopped() || nodes.has(copy.metadata?.labels?.[virtualNodeLabel] ?? '') || !nodes.has(writer.ownNode)) continue;
    input.log.debug('service reflection: adopting the copy of a virtual node without pods here', { namespace, copy: `${remoteNamespace}/${objectKey(d.kind, d.name)}` });
    await writer.adopt(d.kind, copy);
  }
  return held;
}
