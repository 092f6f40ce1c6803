/**
 * An HTTP refusal from the remote API server (a log request, a stream upgrade it will not make)
 * as a classified provider error carrying the remote's own message. The status is classified by
 * the adapters (`kindOfStatus`); for a stream, not-found is notFound, invalid-input and forbidden
 * are invalidInput (the request can never pass as written), anything else transient. The body
 * is read up to a bound and a deadline (REFUSAL_BODY_DEADLINE_MS, 10 s) and stops when the
 * caller's signal aborts, so a remote that answers with an endless or trickling body costs that
 * bound only.
 */
import type { IncomingMessage } from 'node:http';
import { onAbort } from '../../../lib/abortFanOut.js';
import { KubeApiError, kindOfStatus } from '../../../adapters/kubernetes/errors.js';
import { invalidInput, notFound, transient } from '../../errors.js';

/** The most of a refusal's body read for its message. */
export const MAX_REFUSAL_BODY_BYTES = 64 * 1024;

/** How long a refusal's body may take to arrive. */
export const REFUSAL_BODY_DEADLINE_MS = 10_000;

export interface BoundedBodyOptions {
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * The body of `res`, up to `maxBytes`, what came within the deadline, or what came before
 * `signal` aborted (the rest is not read: the response is destroyed).
 */
export function boundedBody(res: IncomingMessage, maxBytes = MAX_REFUSAL_BODY_BYTES, options: BoundedBodyOptions = {}): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let unsubscribe = (): void => undefined;
    const timer = setTimeout(() => cut(), options.deadlineMs ?? REFUSAL_BODY_DEADLINE_MS);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const cut = (): void => {
      res.destroy();
      done();
    };
    if (options.signal) unsubscribe = onAbort(options.signal, cut);
    res.on('data', (chunk: Buffer) => {
      const room = maxBytes - size;
      chunks.push(chunk.subarray(0, room));
      size += Math.min(room, chunk.length);
      if (size >= maxBytes) {
        res.destroy();
        done();
      }
    });
    res.once('end', done);
    res.once('error', done);
    res.once('close', done);
  });
}

/** The remote's message: a Status's `message`, else the body's first bounded part. */
function messageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  } catch {
    // not a Status: the body as it is
  }
  return body.trim().slice(0, 500);
}

export function refusal(code: number, body: string, operation: string): Error {
  const message = messageOf(body) || `HTTP ${code}`;
  const kind = kindOfStatus(code);
  const cause = new KubeApiError({ kind, status: code, message }, operation);
  const text = `${operation}: ${message}`;
  if (kind === 'not-found') return notFound(text, { cause });
  return kind === 'invalid-input' || kind === 'forbidden' ? invalidInput(text, { cause }) : transient(text, { cause });
}
