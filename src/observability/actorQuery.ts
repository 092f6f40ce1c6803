/**
 * Selecting part of the live actor tree, lazily: a pre-order walk whose children are visited in
 * path order, so a page can resume after the last path it returned (`continue`) without keeping
 * anything on the server and without re-walking what came before. Each actor's snapshot (and its
 * state summary) is computed only when the walk reaches it, so a stream of 100k actors costs
 * O(n log k) time and O(depth × k) memory, k being the widest supervisor.
 */
import { shownBelow, type ActorRegistry, type ActorSnapshot, type Inspectable } from '../runtime/actorRegistry.js';
import { matchesFilter, type ActorFilter } from './actorFilter.js';

export interface ActorSelection {
  /** Path of the subtree's root; the whole tree when absent. */
  readonly path?: string;
  /** A virtual node's subtree (`<root>/node-<name>`). */
  readonly node?: string;
  /** Only pod actors of this namespace. */
  readonly namespace?: string;
  /** Only the pod actor of this pod: `name` (with `namespace`) or `namespace/name`. */
  readonly pod?: string;
  /** Levels below the subtree's root; unlimited when absent. */
  readonly depth?: number;
  /** Resume after this path (the previous page's last item). */
  readonly after?: string;
  /** Content filters (state, role, text, restarted, error), applied to every actor walked. */
  readonly filter?: ActorFilter;
}

/** The path of the registry's root actor, or undefined before the system has started. */
export function rootPathOf(registry: ActorRegistry): string | undefined {
  return registry.snapshot({ depth: 0 })[0]?.path;
}

/** Where the walk starts, or undefined when the selection names nothing that exists. */
export function subtreeRoot(registry: ActorRegistry, selection: ActorSelection): Inspectable | undefined {
  if (selection.path !== undefined) return registry.get(selection.path);
  const root = rootPathOf(registry);
  if (root === undefined) return undefined;
  return registry.get(selection.node === undefined ? root : `${root}/node-${selection.node}`);
}

/** Whether `snapshot` passes the namespace/pod filters (which only pod actors can pass). */
export function matchesPodFilter(snapshot: ActorSnapshot, selection: ActorSelection): boolean {
  if (selection.namespace === undefined && selection.pod === undefined) return true;
  const summary = snapshot.summary;
  if (snapshot.kind !== 'pod' || summary === null) return false;
  let namespace = selection.namespace;
  let name = selection.pod;
  if (name !== undefined && name.includes('/')) [namespace, name] = name.split('/', 2) as [string, string];
  if (namespace !== undefined && summary['namespace'] !== namespace) return false;
  return name === undefined || summary['name'] === name;
}

interface Frame {
  readonly cell: Inspectable;
  readonly depth: number;
}

function sortedChildren(cell: Inspectable): Inspectable[] {
  return shownBelow(cell).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The walk's stack as it stands right after `after` was emitted: for every ancestor between the
 * subtree's root and `after`, its children that sort after the chain; then `after`'s children.
 * `after` itself may be gone (a deleted pod): its later siblings are still found by path order.
 */
function resumeStack(registry: ActorRegistry, root: Inspectable, after: string, maxDepth: number): Frame[] | undefined {
  if (!after.startsWith(`${root.path}/`)) return after === root.path ? pushChildren([], root, 0, maxDepth) : undefined;
  const segments = after.slice(root.path.length + 1).split('/');
  const stack: Frame[] = [];
  let ancestor: Inspectable | undefined = root;
  let path = root.path;
  for (let level = 0; level < segments.length; level++) {
    const next = `${path}/${segments[level]}`;
    if (ancestor !== undefined && level < maxDepth) {
      const later = sortedChildren(ancestor).filter((c) => c.path > next);
      for (let i = later.length - 1; i >= 0; i--) stack.push({ cell: later[i] as Inspectable, depth: level + 1 });
    }
    path = next;
    ancestor = registry.get(path);
  }
  if (ancestor !== undefined) pushChildren(stack, ancestor, segments.length, maxDepth);
  return stack;
}

/** Pushes `cell`'s children so that the first in path order is popped first. */
function pushChildren(stack: Frame[], cell: Inspectable, depth: number, maxDepth: number): Frame[] {
  if (depth >= maxDepth) return stack;
  const children = sortedChildren(cell);
  for (let i = children.length - 1; i >= 0; i--) stack.push({ cell: children[i] as Inspectable, depth: depth + 1 });
  return stack;
}

/**
 * Snapshots of the selected actors, in pre-order with children in path order. Lazy: nothing is
 * computed until asked for. Throws RangeError for a `after` outside the selected subtree.
 */
export function* walkActors(registry: ActorRegistry, selection: ActorSelection): Generator<ActorSnapshot> {
  const root = subtreeRoot(registry, selection);
  if (root === undefined) return;
  const maxDepth = selection.depth ?? Number.POSITIVE_INFINITY;
  let stack: Frame[];
  if (selection.after === undefined) {
    stack = [{ cell: root, depth: 0 }];
  } else {
    const resumed = resumeStack(registry, root, selection.after, maxDepth);
    if (resumed === undefined) throw new RangeError(`continue token ${selection.after} is outside the selected subtree ${root.path}`);
    stack = resumed;
  }
  while (stack.length > 0) {
    const { cell, depth } = stack.pop() as Frame;
    const snapshot = cell.snapshot();
    if (matchesPodFilter(snapshot, selection) && (selection.filter === undefined || matchesFilter(snapshot, selection.filter))) yield snapshot;
    pushChildren(stack, cell, depth, maxDepth);
  }
}
