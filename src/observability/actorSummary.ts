/**
 * `GET /actors/summary`: the tree counted rather than listed, grouped node → role (kind) → state,
 * with a count and a restart sum at every level, under the same selection and filters as /actors
 * (so a page's group counts are the lengths of the lists it pages through). Actors outside any
 * virtual node (the root, shared supervisors) group under the node "". The answer's size depends
 * on the number of nodes, roles and states, never on the number of pods; beyond MAX_NODES nodes
 * the rest are counted in `omittedNodes` (ask with `node=`), so it stays under 100 KiB.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ActorRegistry } from '../runtime/actorRegistry.js';
import { walkActors, type ActorSelection } from './actorQuery.js';
import { actorState } from './actorState.js';
import { parseSelection } from './actorsRoute.js';
import { nodeOfPath } from './treeFigures.js';

export interface Counted {
  readonly count: number;
  readonly restarts: number;
}
export interface StateGroup extends Counted { readonly state: string }
export interface RoleGroup extends Counted { readonly role: string; readonly states: readonly StateGroup[] }
export interface NodeGroup extends Counted { readonly node: string; readonly roles: readonly RoleGroup[] }
export interface TreeSummary extends Counted {
  readonly nodes: readonly NodeGroup[];
  readonly omittedNodes: number;
}

export const MAX_NODES = 50;
const YIELD_EVERY = 2_000;

interface Tally { count: number; restarts: number; readonly below: Map<string, Tally> }
const tally = (): Tally => ({ count: 0, restarts: 0, below: new Map() });

function bump(parent: Tally, key: string, restarts: number): Tally {
  let t = parent.below.get(key);
  if (t === undefined) parent.below.set(key, (t = tally()));
  t.count++;
  t.restarts += restarts;
  return t;
}

const byKey = <T>(map: Map<string, Tally>, make: (key: string, t: Tally) => T): T[] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, t]) => make(k, t));

/** Counts the selection; yields to the event loop as it goes, so 100k actors never stall the actors. */
export async function summarizeTree(registry: ActorRegistry, selection: ActorSelection): Promise<TreeSummary> {
  const total = tally();
  let seen = 0;
  for (const snapshot of walkActors(registry, selection)) {
    total.count++;
    total.restarts += snapshot.restarts;
    const node = bump(total, nodeOfPath(snapshot.path) ?? '', snapshot.restarts);
    const role = bump(node, snapshot.kind, snapshot.restarts);
    bump(role, actorState(snapshot), snapshot.restarts);
    if (++seen % YIELD_EVERY === 0) await yieldToLoop();
  }
  const nodes = byKey(total.below, (node, n): NodeGroup => ({
    node, count: n.count, restarts: n.restarts,
    roles: byKey(n.below, (role, r): RoleGroup => ({
      role, count: r.count, restarts: r.restarts,
      states: byKey(r.below, (state, s): StateGroup => ({ state, count: s.count, restarts: s.restarts })),
    })),
  }));
  return { count: total.count, restarts: total.restarts, nodes: nodes.slice(0, MAX_NODES), omittedNodes: Math.max(0, nodes.length - MAX_NODES) };
}

export async function serveSummary(registry: ActorRegistry, _req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const summary = await summarizeTree(registry, parseSelection(url.searchParams));
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(summary));
}
