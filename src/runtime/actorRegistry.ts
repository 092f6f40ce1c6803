import type { StateSummary } from './behavior.js';
import { ChangeFeed } from './changeFeed.js';
import { MessageTrace } from './messageTrace.js';
import type { SupervisionEvent } from './supervisionHistory.js';

export type ActorStatus = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';

export interface ActorSnapshot {
  readonly path: string;
  readonly name: string;
  readonly kind: string;
  readonly parent: string | null;
  readonly status: ActorStatus;
  readonly restarts: number;
  readonly lastError: { readonly message: string; readonly at: string } | null;
  readonly mailboxDepth: number;
  readonly processed: number;
  readonly children: number;
  readonly summary: StateSummary | null;
}

/** How many more crashes a supervisor absorbs before it escalates, or a child before it is given up. */
export interface RestartBudget {
  /** Crashes left within the window; null when no budget applies. */
  readonly crashesLeft: number | null;
  readonly withinMs: number | null;
}

/** One actor in depth, computed only when asked for (`/actors/<path>`). */
export interface ActorDetail {
  readonly history: readonly SupervisionEvent[];
  /** Events recorded in all, including those the ring no longer holds. */
  readonly historyTotal: number;
  /** A supervisor's own budget: crashes of its children before it escalates. */
  readonly escalation?: RestartBudget;
  /** This child's budget with its supervisor: crashes before it is given up. */
  readonly giveUp?: RestartBudget;
}

/** What the registry needs from a live actor or supervisor. */
export interface Inspectable {
  readonly path: string;
  snapshot(): ActorSnapshot;
  childCells(): Iterable<Inspectable>;
  /** Read-only parts shown after the children that are not actors (a provider's reflectors). */
  views?(): Iterable<Inspectable>;
  /** History and restart budgets; absent for what is not supervised (a view). */
  detail?(): ActorDetail;
}

/** What the tree shows below `cell`: its children, then its views. */
export function shownBelow(cell: Inspectable): Inspectable[] {
  return [...cell.childCells(), ...(cell.views?.() ?? [])];
}

export interface SnapshotQuery {
  /** Path of the subtree's root; the whole tree when absent. */
  readonly root?: string;
  /** How many levels below the root to include; unlimited when absent. */
  readonly depth?: number;
}

/**
 * Every actor and supervisor registers here. A snapshot walks the tree synchronously, so it is
 * consistent by construction (no message is handled mid-walk on Node's single thread), and it
 * computes state summaries only for what is asked, so it is cheap enough for every request.
 */
export class ActorRegistry {
  private readonly byPath = new Map<string, Inspectable>();
  private rootPath: string | undefined;
  /** Which actors changed, for the live page's event stream (recorded only while it listens). */
  readonly changes = new ChangeFeed();
  /** The last messages and effects, process-wide, for an actor's detail. */
  readonly trace = new MessageTrace();

  register(cell: Inspectable, isRoot = false): void {
    this.byPath.set(cell.path, cell);
    if (isRoot) this.rootPath = cell.path;
    this.changes.touched(cell.path);
  }

  deregister(cell: Inspectable): void {
    if (this.byPath.get(cell.path) !== cell) return;
    this.byPath.delete(cell.path);
    this.changes.gone(cell.path);
  }

  get size(): number {
    return this.byPath.size;
  }

  get(path: string): Inspectable | undefined {
    return this.byPath.get(path);
  }

  snapshot(query: SnapshotQuery = {}): ActorSnapshot[] {
    const rootPath = query.root ?? this.rootPath;
    const root = rootPath === undefined ? undefined : this.byPath.get(rootPath);
    if (!root) return [];
    const out: ActorSnapshot[] = [];
    const maxDepth = query.depth ?? Number.POSITIVE_INFINITY;
    const stack: Array<[Inspectable, number]> = [[root, 0]];
    while (stack.length > 0) {
      const [cell, depth] = stack.pop() as [Inspectable, number];
      out.push(cell.snapshot());
      if (depth >= maxDepth) continue;
      const children = shownBelow(cell);
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i] as Inspectable, depth + 1]);
    }
    return out;
  }
}
