/**
 * Provider errors classified by behaviour, as virtual-kubelet's errdefs: callers branch on the
 * kind, never on message text.
 *
 * - 'not-found': the provider does not have the object. On delete this means "already gone".
 * - 'invalid-input': the request can never succeed as written; do not retry, report it on the pod.
 * - 'transient': may succeed later; retry with backoff. The default for anything unrecognised.
 *
 * Errors from other libraries are classified by an HTTP status code they carry (client-node's
 * ApiException has a numeric `code`; other clients use `statusCode`):
 *
 * | status            | kind          | why                                                            |
 * |-------------------|---------------|----------------------------------------------------------------|
 * | 404               | not-found     |                                                                |
 * | 400, 422          | invalid-input | malformed or semantically invalid object                       |
 * | 403               | transient     | a remote ResourceQuota rejection ("exceeded quota") clears     |
 * |                   |               | when other pods end, and an RBAC denial clears when an admin   |
 * |                   |               | fixes it; neither is a property of the pod, so retry (backoff) |
 * | 409               | transient     | AlreadyExists on create / Conflict on update: the caller's     |
 * |                   |               | view is stale. Handling is level-based, so the retry re-reads  |
 * |                   |               | (getPod) and then updates or adopts. Providers should make     |
 * |                   |               | createPod idempotent by treating AlreadyExists for the same    |
 * |                   |               | pod uid as success, so a 409 reaching Tether means a different |
 * |                   |               | pod (another uid) still holds the name, which ends in time.    |
 * | anything else     | transient     | 429, 5xx, timeouts, network errors                             |
 */
export type ErrorKind = 'not-found' | 'invalid-input' | 'transient';

export interface ErrorOptions {
  readonly cause?: unknown;
  /**
   * A CamelCase Event reason naming what went wrong more precisely than the kind, in the
   * vocabulary tools already know (virtual-kubelet's `MandatoryConfigMapNotFound`, say). Tether
   * records a Warning Event with it on the pod, besides its own (`ProviderCreateFailed`).
   */
  readonly reason?: string;
}

export class ProviderError extends Error {
  readonly kind: ErrorKind;
  readonly reason: string | undefined;

  constructor(kind: ErrorKind, message: string, options?: ErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.reason = options?.reason;
  }
}

/** The Event reason of the outermost ProviderError in the cause chain that carries one. */
export function eventReasonOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (current instanceof ProviderError && current.reason !== undefined) return current.reason;
    current = current.cause;
  }
  return undefined;
}

export function notFound(message: string, options?: ErrorOptions): ProviderError {
  return new ProviderError('not-found', message, options);
}

export function invalidInput(message: string, options?: ErrorOptions): ProviderError {
  return new ProviderError('invalid-input', message, options);
}

export function transient(message: string, options?: ErrorOptions): ProviderError {
  return new ProviderError('transient', message, options);
}

/** The kind an HTTP status code maps to (see the table above). */
export function kindOfHttpStatus(status: number): ErrorKind {
  if (status === 404) return 'not-found';
  if (status === 400 || status === 422) return 'invalid-input';
  return 'transient';
}

/** The HTTP status an error carries in `code` or `statusCode`, if it is a number in 100..599. */
export function httpStatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const record = err as Record<string, unknown>;
  for (const field of ['code', 'statusCode']) {
    const value = record[field];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  }
  return undefined;
}

/** Guards against cyclic cause chains. */
const MAX_CAUSE_DEPTH = 32;

/**
 * The kind of the outermost error in the `cause` chain that has one (a ProviderError, or an error
 * carrying an HTTP status), or undefined if none does. Outermost wins: a wrapper that classifies
 * deliberately overrides what it wraps.
 */
export function findKind(err: unknown): ErrorKind | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (current instanceof ProviderError) return current.kind;
    const status = httpStatusOf(current);
    if (status !== undefined) return kindOfHttpStatus(status);
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/** The error's kind; 'transient' when nothing in the chain says otherwise. */
export function classify(err: unknown): ErrorKind {
  return findKind(err) ?? 'transient';
}

/**
 * Whether the error was classified on purpose (an answer from the provider) rather than an
 * unexpected failure (a bug or crash in the provider), which a supervisor may want to restart.
 */
export function isClassified(err: unknown): boolean {
  return findKind(err) !== undefined;
}

export function isNotFound(err: unknown): boolean {
  return classify(err) === 'not-found';
}

export function isInvalidInput(err: unknown): boolean {
  return classify(err) === 'invalid-input';
}

export function isTransient(err: unknown): boolean {
  return classify(err) === 'transient';
}
