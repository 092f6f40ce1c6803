/**
 * A read-only entry of the live actor tree that is not an actor: a provider's long-lived part
 * (one Service reflector per namespace, say), drawn as a leaf below the actor that owns it. It
 * has no mailbox and never restarts; its snapshot is made fresh from `summary` on every walk.
 */
import type { ActorSnapshot, Inspectable } from './actorRegistry.js';
import type { StateSummary } from './behavior.js';

export interface PartViewSource {
  readonly name: string;
  readonly kind: string;
  readonly summary: StateSummary;
  readonly lastError?: { readonly message: string; readonly at: string } | undefined;
}

export function partView(parentPath: string, part: PartViewSource): Inspectable {
  const path = `${parentPath}/${part.name}`;
  return {
    path,
    snapshot: (): ActorSnapshot => ({
      path,
      name: part.name,
      kind: part.kind,
      parent: parentPath,
      status: 'running',
      restarts: 0,
      lastError: part.lastError ?? null,
      mailboxDepth: 0,
      processed: 0,
      children: 0,
      summary: part.summary,
    }),
    childCells: () => [],
  };
}
