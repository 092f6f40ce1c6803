/**
 * An in-memory NodeApi that behaves like the apiserver where the node actor cares: uids and
 * resourceVersions, 404/409 answers, and a strategic merge of status that merges `conditions`
 * and `addresses` by type (so other writers' conditions survive). Failures are injected per method.
 */
import type { Node, NodeStatus } from '../../../src/adapters/kubernetes/model.js';
import type { NodeApi, NodeMetadataPatch } from '../../../src/adapters/kubernetes/nodeApi.js';
import { kubeError } from './kubeErrors.js';
import { ScriptedFailures } from './scriptedFailures.js';

type Method = keyof NodeApi;

export class FakeNodeApi implements NodeApi {
  readonly nodes = new Map<string, Node>();
  readonly calls: Array<{ method: Method; name: string; body?: unknown }> = [];
  private readonly failures = new ScriptedFailures<Method>();
  private seq = 0;

  /** The next call(s) of `method` reject with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.failures.failNext(method, ...errors);
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

  async getNode(name: string): Promise<Node | undefined> {
    this.enter('getNode', name);
    return copy(this.nodes.get(name));
  }

  async createNode(node: Node): Promise<Node> {
    const name = node.metadata?.name ?? '';
    this.enter('createNode', name, node);
    if (this.nodes.has(name)) throw kubeError('alreadyExists', `create node ${name}`);
    const stored: Node = { ...copy(node), metadata: { ...node.metadata, uid: `uid-${++this.seq}`, resourceVersion: String(this.seq) } };
    this.nodes.set(name, stored);
    return copy(stored);
  }

  async patchNodeStatus(name: string, status: Partial<NodeStatus>): Promise<Node> {
    this.enter('patchNodeStatus', name, status);
    const node = this.existing(name);
    const before = node.status ?? {};
    node.status = {
      ...before,
      ...copy(status),
      conditions: mergeByType(before.conditions, status.conditions),
      addresses: mergeByType(before.addresses, status.addresses),
    };
    return this.bump(node);
  }

  async patchNodeMetadata(name: string, patch: NodeMetadataPatch): Promise<Node> {
    this.enter('patchNodeMetadata', name, patch);
    const node = this.existing(name);
    const meta = (node.metadata ??= {});
    meta.labels = applyMerge(meta.labels, patch.labels);
    meta.annotations = applyMerge(meta.annotations, patch.annotations);
    return this.bump(node);
  }

  async deleteNode(name: string): Promise<void> {
    this.enter('deleteNode', name);
    this.nodes.delete(name);
  }

  private enter(method: Method, name: string, body?: unknown): void {
    this.calls.push({ method, name, ...(body !== undefined ? { body } : {}) });
    this.failures.throwIfScripted(method);
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

function mergeByType<T extends { type: string }>(before: T[] | undefined, patch: T[] | undefined): T[] | undefined {
  if (!patch) return before;
  const out = [...(before ?? [])];
  for (const item of patch) {
    const i = out.findIndex((o) => o.type === item.type);
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}

function applyMerge(
  before: Record<string, string> | undefined,
  patch: Readonly<Record<string, string | null>> | undefined,
): Record<string, string> | undefined {
  if (!patch) return before;
  const out = { ...before };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
