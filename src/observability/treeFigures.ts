/**
 * The figures /metrics derives from the actor tree, computed in one walk at scrape time (never on
 * a hot path): actors by kind and status, restarts and mailbox depth by kind, pods by phase per
 * virtual node, node readiness, lease renew lag.
 */
import type { ActorSnapshot } from '../runtime/actorRegistry.js';

export interface TreeFigures {
  /** `kind\u0000status` → count. */
  readonly actors: Map<string, number>;
  readonly restarts: Map<string, number>;
  readonly mailboxDepth: Map<string, number>;
  readonly mailboxDepthMax: Map<string, number>;
  /** `node\u0000phase` → count. */
  readonly pods: Map<string, number>;
  readonly nodeReady: Map<string, boolean>;
  readonly leaseLagMs: Map<string, number>;
}

export const SEP = '\u0000';

function add(map: Map<string, number>, key: string, by: number): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** The virtual node an actor belongs to, from its path `<root>/node-<name>/...`. */
export function nodeOfPath(path: string): string | undefined {
  const segment = path.split('/', 3)[1];
  return segment?.startsWith('node-') ? segment.slice('node-'.length) : undefined;
}

export function treeFigures(actors: Iterable<ActorSnapshot>): TreeFigures {
  const figures: TreeFigures = {
    actors: new Map(), restarts: new Map(), mailboxDepth: new Map(), mailboxDepthMax: new Map(),
    pods: new Map(), nodeReady: new Map(), leaseLagMs: new Map(),
  };
  for (const a of actors) {
    add(figures.actors, `${a.kind}${SEP}${a.status}`, 1);
    add(figures.restarts, a.kind, a.restarts);
    add(figures.mailboxDepth, a.kind, a.mailboxDepth);
    figures.mailboxDepthMax.set(a.kind, Math.max(figures.mailboxDepthMax.get(a.kind) ?? 0, a.mailboxDepth));
    const node = nodeOfPath(a.path);
    if (node === undefined || a.summary === null) continue;
    if (a.kind === 'pod' && a.status !== 'stopped') add(figures.pods, `${node}${SEP}${String(a.summary['phase'] ?? 'Unknown')}`, 1);
    if (a.kind === 'virtual-node') figures.nodeReady.set(node, a.summary['ready'] === true);
    const lag = a.summary['lastLagMs'];
    if (a.kind === 'lease' && typeof lag === 'number') figures.leaseLagMs.set(node, lag);
  }
  return figures;
}
