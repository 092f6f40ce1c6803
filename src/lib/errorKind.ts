/**
 * Tether's one error vocabulary, as virtual-kubelet's errdefs: every failure that is an answer
 * (from an API server, a provider, a deadline) carries one of these kinds, set once at the
 * boundary where it was met (adapters/kubernetes/errors.ts for API calls, providers/errors.ts for
 * providers). Everything above branches on `kindOf(err)`, which walks the `cause` chain and never
 * reads message text. An error without a kind anywhere in its chain is no answer but a defect:
 * `kindOf` returns undefined and callers treat it as a crash.
 */

export const ERROR_KINDS = [
  /** The object does not exist (404); on delete, "already gone". */
  'not-found',
  /** A create met an object of that name (409 AlreadyExists). */
  'already-exists',
  /** A stale resourceVersion or a failed precondition (409): re-read and retry. */
  'conflict',
  /** The request can never succeed as written (400, 422, a policy refusal): do not retry it as is. */
  'invalid-input',
  /** Credentials missing or expired (401). */
  'unauthorized',
  /** RBAC or admission said no (403): a quota or a role may change, the request as sent may not. */
  'forbidden',
  /** A resourceVersion too old to list or watch from (410): re-list. */
  'gone',
  /** May succeed later (408, 429, 5xx, other statuses, network errors, deadlines): retry with backoff. */
  'transient',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * An error that names its kind. `kind` is undefined only for an error that wraps something its
 * boundary could not classify (a KubeApiError around a bug): `kindOf` looks past it.
 */
export class KindedError extends Error {
  readonly kind: ErrorKind | undefined;

  constructor(kind: ErrorKind | undefined, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KindedError';
    this.kind = kind;
  }
}

/** Guards against cyclic cause chains. */
const MAX_CAUSE_DEPTH = 32;

/** `err` and the Errors of its `cause` chain, outermost first; a cyclic chain ends. */
export function* causeChain(err: unknown): Generator<Error> {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    yield current;
    current = current.cause;
  }
}

/**
 * The kind of the outermost error in the `cause` chain that names one, or undefined (a defect,
 * not an answer). Outermost wins: a wrapper that classifies deliberately overrides what it wraps.
 */
export function kindOf(err: unknown): ErrorKind | undefined {
  for (const e of causeChain(err)) if (e instanceof KindedError && e.kind !== undefined) return e.kind;
  return undefined;
}

/** True if `err`'s kind (see {@link kindOf}) is one of `kinds`. */
export function isKind(err: unknown, ...kinds: readonly ErrorKind[]): boolean {
  const kind = kindOf(err);
  return kind !== undefined && kinds.includes(kind);
}

/**
 * The HTTP status Tether answers for a failure of that kind (the kubelet API); the inverse of how
 * the adapters read a status, with 503 for everything that may pass later.
 */
export function httpStatusFor(kind: ErrorKind): number {
  switch (kind) {
    case 'not-found': return 404;
    case 'already-exists': return 409;
    case 'conflict': return 409;
    case 'invalid-input': return 400;
    case 'unauthorized': return 401;
    case 'forbidden': return 403;
    case 'gone': return 410;
    case 'transient': return 503;
  }
}
