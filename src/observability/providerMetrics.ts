/**
 * A provider decorator that counts and times every asynchronous provider method by outcome
 * (`ok`, the error class from provider/errors.ts, or `error` for an unclassified one, which
 * callers treat as a crash). Everything else (name, notifyPods, optional abilities) passes
 * through untouched, so `isLogsProvider` and friends see the same abilities. For
 * `getContainerLogs` the time is until the stream is returned, not until it ends.
 */
import { providerKindOf } from '../providers/errors.js';
import type { CallOutcome, TetherMetrics } from './metrics.js';

/** Methods that are not calls to the backend (registration, synchronous accessors). */
const UNTIMED = new Set<PropertyKey>(['notifyPods', 'constructor']);

export function outcomeOf(error: unknown): CallOutcome {
  return providerKindOf(error) ?? 'error';
}

export function withProviderMetrics<P extends object>(provider: P, metrics: TetherMetrics, node: string): P {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(provider, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || UNTIMED.has(prop) || typeof prop !== 'string') return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]): unknown => {
          const started = performance.now();
          const seconds = (): number => (performance.now() - started) / 1000;
          const result = method.apply(target, args);
          if (!(result instanceof Promise)) return result;
          return result.then(
            (ok: unknown) => {
              metrics.recordProviderCall(node, prop, 'ok', seconds());
              return ok;
            },
            (error: unknown) => {
              metrics.recordProviderCall(node, prop, outcomeOf(error), seconds());
              throw error;
            },
          );
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
