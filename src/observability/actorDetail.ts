/**
 * `GET /actors/<path>`: one actor in depth: its snapshot and state, its supervision history
 * (crashes with their classified error, restarts, give-ups, escalations) and restart budgets, its
 * last messages and effects (types only), and for a pod actor the kubectl commands that show the
 * same pod from the host cluster. Bounded: the rings are, and the snapshot is one actor's.
 */
import type { ServerResponse } from 'node:http';
import type { ActorDetail, ActorRegistry, ActorSnapshot } from '../runtime/actorRegistry.js';
import type { TraceEntry } from '../runtime/messageTrace.js';
import { actorState, type ActorState } from './actorState.js';
import { nodeOfPath } from './treeFigures.js';

export interface ActorDetailAnswer {
  readonly actor: ActorSnapshot;
  readonly state: ActorState;
  readonly node: string | null;
  readonly detail: ActorDetail | null;
  readonly trace: readonly TraceEntry[];
  readonly kubectl: readonly string[];
}

/** A shell word: Kubernetes names need no quoting, anything else is single-quoted. */
function word(value: string): string {
  return /^[A-Za-z0-9._-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The commands that show a pod actor's pod (and its node) from the host cluster. */
export function kubectlCommands(snapshot: ActorSnapshot, node: string | null): string[] {
  const s = snapshot.summary;
  if (snapshot.kind !== 'pod' || s === null || typeof s['name'] !== 'string' || typeof s['namespace'] !== 'string') {
    return node === null ? [] : [`kubectl get node ${word(node)} -o wide`, `kubectl describe node ${word(node)}`];
  }
  const ns = word(s['namespace']);
  const name = word(s['name']);
  return [
    `kubectl -n ${ns} get pod ${name} -o wide`,
    `kubectl -n ${ns} describe pod ${name}`,
    `kubectl -n ${ns} get events --field-selector involvedObject.name=${name}`,
    `kubectl -n ${ns} logs ${name} --all-containers`,
    ...(node === null ? [] : [`kubectl get node ${word(node)} -o wide`]),
  ];
}

export function actorDetail(registry: ActorRegistry, path: string): ActorDetailAnswer | undefined {
  const cell = registry.get(path);
  if (cell === undefined) return undefined;
  const actor = cell.snapshot();
  const node = nodeOfPath(path) ?? null;
  return { actor, state: actorState(actor), node, detail: cell.detail?.() ?? null, trace: registry.trace.of(path), kubectl: kubectlCommands(actor, node) };
}

export function serveActorDetail(registry: ActorRegistry, res: ServerResponse, path: string): void {
  const answer = actorDetail(registry, path);
  if (answer === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`no actor at ${path}\n`);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(answer));
}
