import type { Node, NodeStatus } from './model.js';

/**
 * The Node object of a virtual node, as the node actor sees it. Every method rejects only with
 * `KubeApiError` (see errors.ts) and is rate limited: reads and metadata writes as 'other',
 * status patches (the node's heartbeat) as 'lease', deletes as 'delete'.
 */
export interface NodeApi {
  /** The Node, or undefined if it does not exist (404). */
  getNode(name: string): Promise<Node | undefined>;

  /** Creates the Node; rejects with kind 'alreadyExists' if it exists. Returns the stored object. */
  createNode(node: Node): Promise<Node>;

  /**
   * Strategic-merge patch of the `status` subresource. `conditions` and `addresses` merge by
   * their key (`type`), so conditions written by others survive; other fields given replace the
   * stored ones. No resourceVersion is sent. Returns the stored Node.
   */
  patchNodeStatus(name: string, status: Partial<NodeStatus>): Promise<Node>;

  /**
   * Merge patch of labels and annotations; a `null` value deletes that key, keys not mentioned
   * are left alone. Returns the stored Node.
   */
  patchNodeMetadata(name: string, patch: NodeMetadataPatch): Promise<Node>;

  /** Deletes the Node; resolves quietly if it is already gone. */
  deleteNode(name: string): Promise<void>;
}

export interface NodeMetadataPatch {
  readonly labels?: Readonly<Record<string, string | null>>;
  readonly annotations?: Readonly<Record<string, string | null>>;
}
