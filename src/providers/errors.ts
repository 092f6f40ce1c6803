/**
 * Provider errors: what a provider answers when it cannot do what was asked. The kinds are those
 * of Tether's one vocabulary (lib/errorKind.ts); a provider names one of the three the pod actor
 * acts on:
 *
 * - 'not-found': the provider does not have the object. On delete this means "already gone".
 * - 'invalid-input': the request can never succeed as written; do not retry, report it on the pod.
 * - 'transient': may succeed later; retry with backoff.
 *
 * A provider classifies at its own boundary (the Kubernetes provider maps its API failures in
 * kubernetes/remoteErrors.ts); callers read `providerKindOf(err)`, which walks the `cause` chain,
 * never message text, and is undefined for an error nothing classified: a provider bug, which
 * crashes the calling actor.
 */
import { causeChain, KindedError, kindOf, type ErrorKind } from '../lib/errorKind.js';

/** The kinds a provider answers with, and the pod actor acts on. */
export type ProviderErrorKind = Extract<ErrorKind, 'not-found' | 'invalid-input' | 'transient'>;

export interface ErrorOptions {
  readonly cause?: unknown;
  /**
   * A CamelCase Event reason naming what went wrong more precisely than the kind, in the
   * vocabulary tools already know (virtual-kubelet's `MandatoryConfigMapNotFound`, say). Tether
   * records a Warning Event with it on the pod, besides its own (`ProviderCreateFailed`).
   */
  readonly reason?: string;
}

export class ProviderError extends KindedError {
  declare readonly kind: ProviderErrorKind;
  readonly reason: string | undefined;

  constructor(kind: ProviderErrorKind, message: string, options?: ErrorOptions) {
    super(kind, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderError';
    this.reason = options?.reason;
  }
}

/** The Event reason of the outermost ProviderError in the cause chain that carries one. */
export function eventReasonOf(err: unknown): string | undefined {
  for (const e of causeChain(err)) if (e instanceof ProviderError && e.reason !== undefined) return e.reason;
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

/**
 * What a provider's failure means to its caller: `kindOf(err)` seen through the provider
 * contract. An API kind that leaked through unmapped is what it always meant there: 'not-found'
 * and 'invalid-input' as they are, the rest (a 409, 401, 403, 410) may pass later. Undefined for
 * an unclassified error (a bug).
 */
export function providerKindOf(err: unknown): ProviderErrorKind | undefined {
  const kind = kindOf(err);
  if (kind === undefined) return undefined;
  return kind === 'not-found' || kind === 'invalid-input' ? kind : 'transient';
}
