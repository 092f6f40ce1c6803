/**
 * An in-memory NodeApi that behaves like the apiserver where the node actor cares: uids and
 * resourceVersions, 404/409 answers, and a strategic merge of status that merges `conditions`
 * and `addresses` by type (so other writers' conditions survive). Faults are injected per method
 * (`failNext`, or `faults` for slow calls, timeouts and hangs).
 */
import type { Node, NodeStatus } from '../../src/adapters/kubernetes/model.js';
import type { NodeApi, NodeMetadataPatch } from '../../src/adapters/kubernetes/nodeApi.js';
import { kubeError } from './kubeErrors.js';
import { mergeBy, mergeMap } from './mergePatch.js';
import { RecordingApi } from './recordingApi.js';

type Method = keyof NodeApi;

export interface NodeCall {
  readonly method: Method;
  readonly name: string;
  readonly body?: unknown;
}

export class FakeNodeApi extends RecordingApi<Method, NodeCall> implements NodeApi {
  readonly nodes = new Map<string, Node>();
  private seq = 0;

  /** Another writer deletes the Node. */
  remove(name: string): Node | undefined {
    const node = this.nodes.get(name);
    this.nodes.delete(name);
    return node;
  }

  getNode(name: string): Promise<Node | undefined> {
    return this.call('getNode', name, undefined, () => copy(this.nodes.get(name)));
  }

  createNode(node: Node): Promise<Node> {
    const name = node.metadata?.name ?? '';
    return this.call('createNode', name, node, () => {
      if (this.nodes.has(name)) throw kubeError('already-exists', `create node ${name}`);
      const stored: Node = { ...copy(node), metadata: { ...node.metadata, uid: `uid-${++this.seq}`, resourceVersion: String(this.seq) } };
      this.nodes.set(name, stored);
      return copy(stored);
    });
  }

  patchNodeStatus(name: string, status: Partial<NodeStatus>): Promise<Node> {
    return this.call('patchNodeStatus', name, status, () => {
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
    return this.call('patchNodeMetadata', name, patch, () => {
      const node = this.existing(name);
      const meta = (node.metadata ??= {});
      meta.labels = mergeMap(meta.labels, patch.labels);
      meta.annotations = mergeMap(meta.annotations, patch.annotations);
      return this.bump(node);
    });
  }

  deleteNode(name: string): Promise<void> {
    return this.call('deleteNode', name, undefined, () => void this.nodes.delete(name));
  }

  private call<T>(method: Method, name: string, body: unknown, run: () => T): Promise<T> {
    return this.serve({ method, name, ...(body !== undefined ? { body } : {}) }, `${method} ${name}`, run);
  }

  private existing(name: string): Node {
    const node = this.nodes.get(name);
    if (!node) throw kubeError('not-found', `node ${name}`);
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
