/**
 * An API call as a typed value: its Kubernetes verb and what it acts on. Everything a call needs
 * to know about itself is derived from it, never parsed back out of a string: whether it writes
 * (writes are fenced when the node's lock is lost, reads are not), the verb its metric counts,
 * the default deadline class (a list gets the list deadline), and the words in its log lines and
 * error messages (`create remote pod shop-home/web: 403 Forbidden: …`).
 */

/** The API verbs Tether uses (the apiserver's request verbs). */
export const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;

export type Verb = (typeof VERBS)[number];

export interface Operation {
  readonly verb: Verb;
  /** What it acts on, in words: `pod shop/web`, `status of node vk-1`, `remote pods`. */
  readonly target: string;
}

const READ_VERBS: ReadonlySet<Verb> = new Set<Verb>(['get', 'list', 'watch']);

export function operation(verb: Verb, target: string): Operation {
  return { verb, target };
}

/** Reads change nothing, so a fence never holds them back. */
export function isRead(op: Operation): boolean {
  return READ_VERBS.has(op.verb);
}

/** The words for logs and messages: `<verb> <target>`. */
export function describeOperation(op: Operation): string {
  return `${op.verb} ${op.target}`;
}
