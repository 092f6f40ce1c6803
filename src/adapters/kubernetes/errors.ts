/**
 * Kubernetes API errors, classified once, here, into Tether's vocabulary (lib/errorKind.ts) by
 * what the caller should do about them: by HTTP status and error code, never by message text,
 * except which check refused a 403, which the API server says only in words (admissionDenial.ts).
 *
 * client-node 1.4 rejects with `ApiException` (numeric `.code`, `.body` a raw JSON string of a
 * `Status`, or undefined for 401); Tether's HTTP library (httpLibrary.ts) with a `TransportError`
 * (transient, with the socket's errno `code`); the watch, through node-fetch, with a `FetchError`
 * (`type: 'system'`, an errno `code`), an `AbortError`, or an Error carrying `statusCode`.
 * The adapters convert all of these into {@link KubeApiError}, so nothing above this folder
 * ever sees a client-node type; {@link classifyApiError} walks the `cause` chain, so wrapping a
 * KubeApiError keeps its class. Above this folder, code reads `kindOf(err)`.
 *
 * | failure                                   | kind           |
 * |-------------------------------------------|----------------|
 * | 404                                       | not-found      |
 * | 409 with reason AlreadyExists             | already-exists |
 * | 409 otherwise                             | conflict       |
 * | 400, 422                                  | invalid-input  |
 * | 401                                       | unauthorized   |
 * | 403                                       | forbidden, and which check refused (`denial`, admissionDenial.ts) |
 * | 410                                       | gone           |
 * | any other status, a network error code,   | transient      |
 * | an abort, a timeout, a deadline           |                |
 * | anything else (a TypeError: a bug)        | none (kindOf is undefined: a crash) |
 */
import { KindedError, kindOf, type ErrorKind } from '../../lib/errorKind.js';
import { definedOnly } from '../../lib/defaults.js';
import { admissionDenialOf, type AdmissionDenial } from './admissionDenial.js';

/** The facts of one API failure. `message` is the server's Status message when it sent one. */
export interface ApiErrorInfo {
  /** Undefined when nothing in the error says what it is: no status, no network code (a bug). */
  readonly kind: ErrorKind | undefined;
  /** HTTP status, when there was a response. */
  readonly status?: number;
  /** The Status `reason` (e.g. 'AlreadyExists', 'Forbidden'), when the server sent one. */
  readonly reason?: string;
  readonly message: string;
  /** From the Retry-After header or Status details, when present. */
  readonly retryAfterSeconds?: number;
  /** The fields the Status names in `details.causes` (e.g. `metadata.uid` on a 422 Invalid). */
  readonly causeFields?: readonly string[];
  /** On a 403: which check refused (PodSecurity, quota, RBAC …), when the answer says. */
  readonly denial?: AdmissionDenial;
}

/** The error every adapter method rejects with. `cause` holds the original error. */
export class KubeApiError extends KindedError implements ApiErrorInfo {
  override readonly name = 'KubeApiError';
  readonly status?: number;
  readonly reason?: string;
  readonly retryAfterSeconds?: number;
  readonly causeFields?: readonly string[];
  readonly denial?: AdmissionDenial;

  constructor(info: ApiErrorInfo, operation: string, cause?: unknown) {
    super(info.kind, `${operation}: ${info.message}`, { cause });
    if (info.status !== undefined) this.status = info.status;
    if (info.reason !== undefined) this.reason = info.reason;
    if (info.retryAfterSeconds !== undefined) this.retryAfterSeconds = info.retryAfterSeconds;
    if (info.causeFields !== undefined) this.causeFields = info.causeFields;
    if (info.denial !== undefined) this.denial = info.denial;
  }
}

/** Wraps any rejection from client-node as a KubeApiError naming the operation. */
export function toKubeApiError(err: unknown, operation: string): KubeApiError {
  if (err instanceof KubeApiError) return err;
  return new KubeApiError(classifyApiError(err), operation, err);
}

/** Runs `fn`, converting any rejection into a KubeApiError. */
export async function translateErrors<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toKubeApiError(err, operation);
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND',
  'EAI_AGAIN', 'ECONNABORTED', 'UND_ERR_SOCKET', 'ERR_STREAM_PREMATURE_CLOSE', 'UND_ERR_CONNECT_TIMEOUT',
]);

/** Classifies any error: a KubeApiError, an ApiException, a fetch/network error, or its causes. */
export function classifyApiError(err: unknown): ApiErrorInfo {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    const found = classifyOne(e);
    if (found) return found;
    e = isRecord(e) ? e.cause : undefined;
  }
  return { kind: undefined, message: messageOf(err) };
}

function classifyOne(e: unknown): ApiErrorInfo | undefined {
  if (e instanceof KubeApiError && e.kind !== undefined) return e;
  // Classified at another boundary (a deadline, a fence, a provider): kept, with its own words.
  if (e instanceof KindedError && !(e instanceof KubeApiError)) {
    const kind = kindOf(e);
    if (kind !== undefined) return { kind, message: messageOf(e) };
  }
  if (!isRecord(e)) return undefined;
  const status = httpStatusOf(e);
  if (status !== undefined) return fromStatus(status, e);
  const code = typeof e.code === 'string' ? e.code : undefined;
  const type = typeof e.type === 'string' ? e.type : undefined;
  if (
    (code !== undefined && NETWORK_CODES.has(code)) ||
    type === 'system' || type === 'request-timeout' || type === 'aborted' ||
    e.name === 'AbortError' || e.name === 'TimeoutError' || e.name === 'FetchError'
  ) {
    return { kind: 'transient', message: messageOf(e) };
  }
  return undefined;
}

function httpStatusOf(e: Record<string, unknown>): number | undefined {
  // ApiException: numeric `code` (plus body/headers). Watch errors: `statusCode`.
  if (typeof e.code === 'number' && ('body' in e || 'headers' in e)) return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return undefined;
}

function fromStatus(status: number, e: Record<string, unknown>): ApiErrorInfo {
  const body = parseStatusBody(e.body);
  const reason = body?.reason;
  const message = body?.message ?? (status === 401 ? 'Unauthorized' : `HTTP ${status}`);
  const retryAfterSeconds = retryAfterOf(e.headers) ?? body?.retryAfterSeconds;
  const denial = status === 403 && body !== undefined
    ? admissionDenialOf({ message, ...definedOnly({ detailsKind: body.detailsKind, detailsName: body.detailsName }) })
    : undefined;
  return {
    kind: kindOfStatus(status, reason),
    status,
    message,
    ...definedOnly({ reason, retryAfterSeconds, causeFields: body?.causeFields, denial }),
  };
}

/** The kind of an HTTP status (and the Status reason, which tells AlreadyExists from Conflict). */
export function kindOfStatus(status: number, reason?: string): ErrorKind {
  switch (status) {
    case 404: return 'not-found';
    case 409: return reason === 'AlreadyExists' ? 'already-exists' : 'conflict';
    case 400: case 422: return 'invalid-input';
    case 401: return 'unauthorized';
    case 403: return 'forbidden';
    case 410: return 'gone';
    default: return 'transient';
  }
}

interface StatusBody {
  message?: string;
  reason?: string;
  retryAfterSeconds?: number;
  causeFields?: readonly string[];
  detailsKind?: string;
  detailsName?: string;
}

/** Parses a Status from a raw JSON string or an already-parsed object; undefined if neither. */
function parseStatusBody(body: unknown): StatusBody | undefined {
  let obj: unknown = body;
  if (typeof body === 'string') {
    try {
      obj = JSON.parse(body);
    } catch {
      return body.trim() === '' ? undefined : { message: body.trim().split('\n')[0] ?? '' };
    }
  }
  if (!isRecord(obj)) return undefined;
  const details = isRecord(obj.details) ? obj.details : {};
  const out: StatusBody = {};
  if (typeof obj.message === 'string' && obj.message !== '') out.message = obj.message;
  if (typeof obj.reason === 'string' && obj.reason !== '') out.reason = obj.reason;
  if (typeof details.retryAfterSeconds === 'number') out.retryAfterSeconds = details.retryAfterSeconds;
  if (typeof details.kind === 'string' && details.kind !== '') out.detailsKind = details.kind;
  if (typeof details.name === 'string' && details.name !== '') out.detailsName = details.name;
  const fields = (Array.isArray(details.causes) ? details.causes : []).flatMap((c: unknown) => (isRecord(c) && typeof c.field === 'string' ? [c.field] : []));
  if (fields.length > 0) out.causeFields = fields;
  return out;
}

function retryAfterOf(headers: unknown): number | undefined {
  if (!isRecord(headers)) return undefined;
  const v = headers['retry-after'] ?? headers['Retry-After'];
  const n = typeof v === 'string' ? Number(v) : undefined;
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/**
 * One line for a log or an Event: "403 Forbidden: pods "p" is forbidden: exceeded quota: …".
 * Uses the Status body's message and reason; never the multi-line ApiException message.
 */
export function describeApiError(err: unknown): string {
  const info = classifyApiError(err);
  const head = [info.status !== undefined ? String(info.status) : undefined, info.reason].filter(Boolean).join(' ');
  const text = `${head === '' ? labelOf(info.kind) : head}: ${info.message}`;
  return text.replace(/\s*\n\s*/g, ' ');
}

/** The server's Retry-After (header or Status details) in ms, if `err` or a cause carries one. */
export function retryAfterMsOf(err: unknown): number | undefined {
  const seconds = classifyApiError(err).retryAfterSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}

/** What a failure without a status is called in a message (the words Tether has always used). */
function labelOf(kind: ErrorKind | undefined): string {
  if (kind === undefined) return 'unknown';
  return kind === 'transient' ? 'unavailable' : kind;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.message;
  return String(err);
}
