/**
 * An in-memory NodeApi that behaves like the apiserver where the node actor cares: uids and
 * resourceVersions, 404/409 answers, and a strategic merge of status that merges `conditions`
 * and `addresses` by type (so other writers' conditions survive). Faults are injected per method
 * (`failNext`, or `faults` for slow calls, timeouts and hangs).
 */
import type { Clock } from '../../src/lib/clock.js';
import type { Node, NodeStatus } from '../../src/adapters/kubernetes/model.js';
import type { NodeApi, NodeMetadataPatch } from '../../src/adapters/kubernetes/nodeApi.js';
import { ApiFaults } from './apiFaults.js';
import { kubeError } from './kubeErrors.js';
import { mergeBy, mergeMap } from './mergePatch.js';

type Method = keyof NodeApi;

export class FakeNodeApi implements NodeApi {
  readonly nodes = new Map<string, Node>();
  readonly calls: Array<{ method: Method; name: string; body?: unknown }> = [];
  readonly faults: ApiFaults<Method>;
  private seq = 0;

  /** `clock`: where delayed faults wait (needed only for those). */
  constructor(clock?: Clock) {
    this.faults = new ApiFaults<Method>(clock);
  }

  /** The next call(s) of `method` reject with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.faults.failNext(method, ...errors);
  }

  count(method: Method): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  /** Another writer deletes the Node. */
  remove(name: string): Node | undefined {
    const node = this.nodes.get(name);
    this.nodes.delete(name);
    return node;
  }

  getNode(name: string): Promise<Node | undefined> {
    return this.serve('getNode', name, undefined, () => copy(this.nodes.get(name)));
  }

  createNode(node: Node): Promise<Node> {
    const name = node.metadata?.name ?? '';
    return this.serve('createNode', name, node, () => {
      if (this.nodes.has(name)) throw kubeError('alreadyExists', `create node ${name}`);
      const stored: Node = { ...copy(node), metadata: { ...node.metadata, uid: `uid-${++this.seq}`, resourceVersion: String(this.seq) } };
      this.nodes.set(name, stored);
      return copy(stored);
    });
  }

  patchNodeStatus(name: string, status: Partial<NodeStatus>): Promise<Node> {
    return this.serve('patchNodeStatus', name, status, () => {
      const node = this.existing(name);
      const before = node.status ?? {};
      node.status = {
        ...before,
        ...copy(status),
        conditions: mergeBy(before.conditions, status.conditions, (c) => c.type),
        addresses: mergeBy(before.addresses, status.addresses, (a) => a.type),
      };
      return this.bump(node);
    });
  }

  patchNodeMetadata(name: string, patch: NodeMetadataPatch): Promise<Node> {
    return this.serve('patchNodeMetadata', name, patch, () => {
      const node = this.existing(name);
      const meta = (node.metadata ??= {});
      meta.labels = mergeMap(meta.labels, patch.labels);
      meta.annotations = mergeMap(meta.annotations, patch.annotations);
      return this.bump(node);
    });
  }

  deleteNode(name: string): Promise<void> {
    return this.serve('deleteNode', name, undefined, () => void this.nodes.delete(name));
  }

  /** Records the call, plays out its fault (if any), then runs it against the store. */
  private async serve<T>(method: Method, name: string, body: unknown, run: () => T): Promise<T> {
    this.calls.push({ method, name, ...(body !== undefined ? { body } : {}) });
    const settle = await this.faults.enter(method, `${method} ${name}`);
    const result = run();
    settle();
    return result;
  }

  private existing(name: string): Node {
    const node = this.nodes.get(name);
    if (!node) throw kubeError('notFound', `node ${name}`);
    return node;
  }

  private bump(node: Node): Node {
    node.metadata = { ...node.metadata, resourceVersion: String(++this.seq) };
    return copy(node);
  }
}

function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
