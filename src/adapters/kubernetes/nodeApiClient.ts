import type { CoreV1Api } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { call, type Caller, ignoreNotFound, orUndefined } from './call.js';
import type { Node, NodeStatus } from './model.js';
import type { NodeApi, NodeMetadataPatch } from './nodeApi.js';
import { operation } from './operation.js';

/** {@link NodeApi} over client-node's CoreV1Api. */
export class NodeApiClient implements NodeApi {
  constructor(
    private readonly core: CoreV1Api,
    private readonly limiter: Caller,
  ) {}

  getNode(name: string): Promise<Node | undefined> {
    return orUndefined(call(this.limiter, 'other', operation('get', `node ${name}`), (o) => this.core.readNode({ name }, o)));
  }

  createNode(node: Node): Promise<Node> {
    const name = node.metadata?.name ?? '';
    return call(this.limiter, 'other', operation('create', `node ${name}`), (o) => this.core.createNode({ body: node }, o));
  }

  patchNodeStatus(name: string, status: Partial<NodeStatus>): Promise<Node> {
    // The node's status is its heartbeat: it goes with the lease, never behind a pod status backlog.
    return call(this.limiter, 'lease', operation('patch', `status of node ${name}`), (o) =>
      this.core.patchNodeStatus(
        { name, body: { status } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, o),
      ),
    );
  }

  patchNodeMetadata(name: string, patch: NodeMetadataPatch): Promise<Node> {
    const metadata: Record<string, unknown> = {};
    if (patch.labels) metadata.labels = patch.labels;
    if (patch.annotations) metadata.annotations = patch.annotations;
    return call(this.limiter, 'other', operation('patch', `metadata of node ${name}`), (o) =>
      this.core.patchNode({ name, body: { metadata } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o)),
    );
  }

  deleteNode(name: string): Promise<void> {
    return ignoreNotFound(call(this.limiter, 'delete', operation('delete', `node ${name}`), (o) => this.core.deleteNode({ name }, o)));
  }
}
