/**
 * Every request or connection the kubelet API refuses, named by a reason from one closed list,
 * counted (`RejectionSink.onRejected`, the metric `tether_kubelet_rejected_requests_total`) and
 * logged. The log is sampled per reason (the first of each reason in a window at info, 5xx at
 * warn, the rest at debug and summed into the next line), so a flood of junk costs a counter
 * increment, not a disk of log lines. Only the path is logged, never the query (exec's command
 * may carry anything) nor a header.
 */
import type { Logger } from '../adapters/logger.js';
import type { Clock } from '../lib/clock.js';
import { httpStatusFor } from '../lib/errorKind.js';
import { providerKindOf } from '../providers/errors.js';
import { InvalidLogQuery } from './logQuery.js';
import { InvalidStreamRequest } from './streamRequest.js';
import { definedOnly, ifDefined } from '../lib/defaults.js';

export const REJECTION_REASONS = [
  /** The bytes are not an HTTP request (the parser gave up): Node's clientError. */
  'malformed-request',
  /** The request line and headers exceed Node's bound (16 KiB): 431. */
  'header-too-large',
  /** The TLS handshake failed (not TLS, no common cipher, a bad client certificate chain). */
  'tls-handshake',
  /** The request target does not parse (requestTarget.ts). */
  'malformed-url',
  /** An upgrade whose WebSocket headers cannot work (no key, another version). */
  'malformed-header',
  /** An upgrade to something other than a WebSocket (SPDY, h2c), or a stream path without one. */
  'unsupported-upgrade',
  /** A query or target the endpoint refuses (unknown container, bad tailLines, no subprotocol). */
  'bad-request',
  'unauthenticated',
  'forbidden',
  /** The token-review rate limit (access.ts). */
  'rate-limited',
  /** A stream cap of the node, the user or the pod (streamAdmission.ts). */
  'stream-cap',
  'not-found',
  'method-not-allowed',
  'not-implemented',
  /** The provider, a review or the cluster did not answer within its deadline: 503. */
  'unavailable',
  /** A stream's own protocol (SPDY frames, channel frames) broken by the peer. */
  'protocol-error',
  /** Anything else: a defect of Tether's, answered 500. */
  'internal',
] as const;

export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** Where rejections are counted; the app wires it to TetherMetrics. */
export interface RejectionSink {
  onRejected(reason: RejectionReason): void;
}

/** A refusal on its way to the client: an HTTP code, a reason for the metric, and the body. */
export class Refusal extends Error {
  override readonly name = 'Refusal';
  constructor(
    readonly code: number,
    readonly reason: RejectionReason,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** The reason of an HTTP code, for refusals made elsewhere (access decisions, provider errors). */
export function reasonOfCode(code: number): RejectionReason {
  switch (code) {
    case 400: return 'bad-request';
    case 401: return 'unauthenticated';
    case 403: return 'forbidden';
    case 404: return 'not-found';
    case 405: return 'method-not-allowed';
    case 429: return 'rate-limited';
    case 431: return 'header-too-large';
    case 501: return 'not-implemented';
    case 503: return 'unavailable';
    default: return code >= 500 ? 'internal' : 'bad-request';
  }
}

/**
 * What a failed request answers: a Refusal as it is; a bad query 400; a provider's classified
 * error by its kind (`httpStatusFor`: not-found 404, invalid-input 400, transient 503); anything
 * else 500.
 */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof InvalidLogQuery || error instanceof InvalidStreamRequest) return new Refusal(400, 'bad-request', message);
  const kind = providerKindOf(error);
  if (kind === undefined) return new Refusal(500, 'internal', message);
  const code = httpStatusFor(kind);
  return new Refusal(code, reasonOfCode(code), message);
}

export interface RejectionContext {
  readonly method?: string | undefined;
  /** The request target; only its path (at most 200 characters) is logged. */
  readonly target?: string | undefined;
  readonly remote?: string | undefined;
}

export type RejectionReporter = (refusal: { readonly code: number; readonly reason: RejectionReason; readonly message: string }, context: RejectionContext) => void;

export interface RejectionReporterOptions {
  readonly logger?: Logger;
  readonly sink?: RejectionSink;
  readonly clock: Clock;
  /** One info (or warn) line per reason per window; default 60 s. */
  readonly logWindowMs?: number;
}

export function pathOf(target: string | undefined): string {
  const raw = target ?? '';
  const cut = raw.indexOf('?');
  return (cut === -1 ? raw : raw.slice(0, cut)).slice(0, 200);
}

export function rejectionReporter(options: RejectionReporterOptions): RejectionReporter {
  const windowMs = options.logWindowMs ?? 60_000;
  const lastLoud = new Map<RejectionReason, { at: number; quiet: number }>();
  return (refusal, context) => {
    try {
      options.sink?.onRejected(refusal.reason);
    } catch {
      // A broken sink must not turn a refusal into a crash.
    }
    const logger = options.logger;
    if (!logger) return;
    const now = options.clock.now();
    const seen = lastLoud.get(refusal.reason);
    const fields = {
      reason: refusal.reason, code: refusal.code, message: refusal.message.slice(0, 300),
      ...definedOnly({
        method: ifDefined(context.method, (m) => m.slice(0, 20)),
        path: ifDefined(context.target, pathOf),
        remote: context.remote,
      }),
    };
    if (seen && now - seen.at < windowMs) {
      seen.quiet++;
      logger.debug('kubelet API request refused', fields);
      return;
    }
    lastLoud.set(refusal.reason, { at: now, quiet: 0 });
    const summary = { ...fields, ...definedOnly({ alsoRefusedSinceLastLine: seen && seen.quiet > 0 ? seen.quiet : undefined }) };
    if (refusal.code >= 500) logger.warn('kubelet API request refused', summary);
    else logger.info('kubelet API request refused', summary);
  };
}
