/**
 * An actor tree without actors: Inspectable cells whose snapshots a test sets directly, in a real
 * ActorRegistry, behind a fake AgentView. For route and metric specifications that need exact,
 * changeable figures (a 20k-actor tree, a pod that failed, a node not registered).
 */
import type { ActorSnapshot, ActorStatus, Inspectable } from '../../src/runtime/actorRegistry.js';
import { ActorRegistry } from '../../src/runtime/actorRegistry.js';
import type { StateSummary } from '../../src/runtime/behavior.js';
import type { AgentView } from '../../src/observability/agentView.js';

export class FakeCell implements Inspectable {
  readonly children = new Map<string, FakeCell>();
  status: ActorStatus = 'running';
  restarts = 0;
  mailboxDepth = 0;
  lastError: { message: string; at: string } | null = null;
  summary: StateSummary | null = null;

  constructor(readonly path: string, readonly name: string, readonly kind: string, readonly parent: FakeCell | null, private readonly counts: { snapshots: number }) {}

  snapshot(): ActorSnapshot {
    this.counts.snapshots++;
    return {
      path: this.path, name: this.name, kind: this.kind, parent: this.parent?.path ?? null, status: this.status,
      restarts: this.restarts, lastError: this.lastError, mailboxDepth: this.mailboxDepth, processed: 0,
      children: this.children.size, summary: this.summary,
    };
  }

  childCells(): Iterable<Inspectable> {
    return this.children.values();
  }
}

export class FakeTree {
  readonly registry = new ActorRegistry();
  readonly root: FakeCell;
  readonly synced = new Map<string, boolean>();
  /** Every snapshot taken of any cell: the work a query did, counted rather than timed. */
  readonly counts = { snapshots: 0 };

  constructor() {
    this.root = new FakeCell('tether', 'tether', 'root', null, this.counts);
    this.registry.register(this.root, true);
  }

  add(parent: FakeCell, name: string, kind: string, summary: StateSummary | null = null): FakeCell {
    const cell = new FakeCell(`${parent.path}/${name}`, name, kind, parent, this.counts);
    cell.summary = summary;
    parent.children.set(name, cell);
    this.registry.register(cell);
    return cell;
  }

  remove(cell: FakeCell): void {
    cell.parent?.children.delete(cell.name);
    this.registry.deregister(cell);
  }

  /** A virtual node's subtree as startVirtualNode builds it, with `shards` shard supervisors. */
  addNode(name: string, shards = 2): { node: FakeCell; shards: FakeCell[]; nodeActor: FakeCell; lease: FakeCell } {
    const node = this.add(this.root, `node-${name}`, 'virtual-node', { node: name, ready: true, reason: 'KubeletReady', provider: 'simulated' });
    const lease = this.add(node, 'lease', 'lease', { lastLagMs: 120 });
    const nodeActor = this.add(node, 'node', 'node', { registered: true });
    this.add(node, 'pod-controller', 'pod-controller', { synced: true });
    const group = this.add(node, 'pods', 'shards');
    const list = Array.from({ length: shards }, (_, i) => this.add(group, `shard-${String(i).padStart(2, '0')}`, 'shard'));
    this.synced.set(name, true);
    return { node, shards: list, nodeActor, lease };
  }

  addPod(shard: FakeCell, uid: string, namespace: string, name: string, phase: string | null = 'Running'): FakeCell {
    return this.add(shard, uid, 'pod', { namespace, name, stage: 'running', phase, ready: phase === 'Running', lastError: null });
  }

  agent(): AgentView {
    return {
      system: { registry: this.registry },
      nodes: [...this.root.children.values()].filter((c) => c.kind === 'virtual-node').map((c) => {
        const name = c.name.slice('node-'.length);
        return { name, path: c.path, watchesSynced: () => this.synced.get(name) ?? false };
      }),
      rateLimiterStats: () => new Map([...this.synced.keys()].map((n) => [n, {
        lease: { queued: 0, started: 3, waitMs: 0, dropped: 0 }, delete: { queued: 0, started: 0, waitMs: 0, dropped: 0 },
        status: { queued: 1, started: 5, waitMs: 250, dropped: 0 }, other: { queued: 0, started: 9, waitMs: 40, dropped: 0 },
        event: { queued: 2, started: 4, waitMs: 10, dropped: 7 },
      }])),
    };
  }
}
