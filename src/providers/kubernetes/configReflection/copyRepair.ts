/**
 * Whether one reflected copy must be (re)written, judged from what the two watches hold rather
 * than from what Tether remembers writing: a copy deleted in the remote cluster between Tether's
 * write and the moment the watches came up is only visible as an absence in the copies' cache, so
 * "I already wrote this content" is never a reason to skip. The copy is in sync if it carries
 * what Tether wants on the keys Tether sets (contentMark.ts), or equals what the remote API
 * server stored for Tether's last write of that content: a remote mutating admission webhook
 * that adds a label to every write would otherwise make each repair provoke the next, and every
 * restart rewrite every copy. Pure; configReflector.ts runs the verdict.
 */
import { carriesContent } from '../contentMark.js';
import type { HostObject } from './reflectedObject.js';
import { contentDigest } from './reflectedObject.js';

export interface CopyRepairInput {
  /** A pod of this node still references the object. */
  readonly referenced: boolean;
  /** The host watch of the object's namespace has listed once. */
  readonly sourceSynced: boolean;
  /** The host object, from the host watch (undefined: gone, or a kind never copied). */
  readonly source: HostObject | undefined;
  /** The watch of the remote copies has listed once. */
  readonly copiesSynced: boolean;
  /** The remote copy, from the copies' watch (undefined: absent). */
  readonly copy: HostObject | undefined;
  /** What the copy should be, made from `source`. */
  readonly desired: HostObject | undefined;
  /** contentDigest of what the remote stored for Tether's last write of `desired`, if that is what was last written. */
  readonly stored?: string;
  /**
   * The copies' watch has not yet shown Tether's last write of this copy (an event at or after
   * its resourceVersion): what it holds, or does not hold, predates that write.
   */
  readonly awaitingEcho?: boolean;
}

export type CopyRepair =
  | { readonly action: 'write' }
  | { readonly action: 'none'; readonly why: 'unreferenced' | 'waiting-for-watches' | 'watch-behind' | 'no-source' | 'in-sync' };

export function decideCopyRepair(input: CopyRepairInput): CopyRepair {
  if (!input.referenced) return { action: 'none', why: 'unreferenced' };
  // Until both watches have listed, an absence means nothing; their 'synced' event asks again.
  if (!input.sourceSynced || !input.copiesSynced) return { action: 'none', why: 'waiting-for-watches' };
  // A host deletion is the host watch's to follow (it deletes the copy).
  if (!input.source || !input.desired) return { action: 'none', why: 'no-source' };
  // The copies' watch is behind Tether's last write: the write's own event judges when it comes.
  if (input.awaitingEcho) return { action: 'none', why: 'watch-behind' };
  if (input.copy) {
    const seen = contentDigest(input.copy);
    if (seen === contentDigest(input.desired) || seen === input.stored || carriesContent(input.copy, input.desired, contentDigest)) {
      return { action: 'none', why: 'in-sync' };
    }
  }
  return { action: 'write' };
}
