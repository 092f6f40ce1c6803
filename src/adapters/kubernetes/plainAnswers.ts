/**
 * Answers kept out of client-node's model layer. client-node turns every 2xx answer into its model
 * classes (ObjectSerializer walks the type tree of a whole V1Pod and builds its Dates), which for
 * the agent's most frequent writes is work nobody reads: a created Event's answer is never read,
 * and of a status patch's answer only the stored status and resourceVersion are. In the creating
 * phase of bench:compare that was about 4% of the agent's CPU (docs/benchmarks.md).
 *
 * Both helpers return request options with one more middleware, which sees the answer before
 * client-node's response processor does: a 2xx answer reaches client-node as `{}` (a model of
 * nothing, which the caller does not use). Any other answer passes untouched, so errors are read
 * and classified exactly as before.
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { ResponseContext } from '@kubernetes/client-node';
import { withMiddleware } from './call.js';

/** What client-node reads in place of a 2xx answer. */
const NOTHING = '{}';

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

function answered(context: ResponseContext, text: string): ResponseContext {
  return new ResponseContext(context.httpStatusCode, context.headers, {
    text: () => Promise.resolve(text),
    binary: () => Promise.resolve(Buffer.from(text)),
  });
}

/** Request options under which a 2xx answer is not read at all: for writes whose answer Tether ignores. */
export function unreadAnswer(base?: ConfigurationOptions): ConfigurationOptions {
  return withMiddleware(base, { post: (context) => Promise.resolve(isSuccess(context.httpStatusCode) ? answered(context, NOTHING) : context) });
}

/** The options of a call whose 2xx answer is read as plain JSON, and that answer once the call resolved. */
export interface PlainAnswer<T> {
  readonly options: ConfigurationOptions;
  /** The parsed answer (timestamps as the API server's strings, as a watch carries them); undefined before a 2xx answer. */
  value(): T | undefined;
}

/**
 * Request options under which a 2xx answer is parsed with `JSON.parse` only. An answer that is
 * not JSON goes on to client-node as it came, which rejects it as it always has.
 */
export function plainAnswer<T>(base?: ConfigurationOptions): PlainAnswer<T> {
  let value: T | undefined;
  const post = async (context: ResponseContext): Promise<ResponseContext> => {
    if (!isSuccess(context.httpStatusCode)) return context;
    const text = await context.body.text();
    try {
      value = JSON.parse(text) as T;
    } catch {
      return answered(context, text);
    }
    return answered(context, NOTHING);
  };
  return { options: withMiddleware(base, { post }), value: () => value };
}
