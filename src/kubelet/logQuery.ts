/**
 * The query of `GET /containerLogs/{namespace}/{pod}/{container}` as the API server forwards
 * `kubectl logs` options: follow, previous, timestamps (booleans as "true"/"1"), tailLines,
 * sinceSeconds, limitBytes (non-negative integers), sinceTime (RFC 3339, turned into seconds).
 */
import type { ContainerLogOptions } from '../providers/provider.js';

/**
 * A query the endpoint refuses: a 400 whose body is this message. Not a FieldProblem (the record
 * of the config loader and the pod policy): the answer to one request is one sentence in the
 * kubelet's words, which kubectl prints as it is (`error: ...`), not a list of `path: message`
 * lines about an input file or object (docs/architecture.md, One config path).
 */
export class InvalidLogQuery extends Error {}

export interface ContainerLogTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

/** The decoded segments of `/containerLogs/ns/pod/container` (requestTarget.ts) → its three parts, or undefined. */
export function containerLogTarget(segments: readonly string[]): ContainerLogTarget | undefined {
  const [first, namespace, pod, container, ...rest] = segments;
  if (first !== 'containerLogs' || rest.length > 0 || !namespace || !pod || !container) return undefined;
  return { namespace, pod, container };
}

function flag(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (raw === '' || raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new InvalidLogQuery(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

function count(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidLogQuery(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

export function parseLogOptions(params: URLSearchParams, now: number = Date.now()): ContainerLogOptions {
  let sinceSeconds = count(params, 'sinceSeconds');
  const sinceTime = params.get('sinceTime');
  if (sinceTime) {
    const at = Date.parse(sinceTime);
    if (Number.isNaN(at)) throw new InvalidLogQuery(`sinceTime must be RFC 3339, got ${JSON.stringify(sinceTime)}`);
    if (sinceSeconds !== undefined) throw new InvalidLogQuery('at most one of sinceSeconds and sinceTime');
    sinceSeconds = Math.max(0, Math.ceil((now - at) / 1000));
  }
  const options: Record<string, number | boolean> = {};
  const set = (name: string, value: number | boolean | undefined): void => {
    if (value !== undefined) options[name] = value;
  };
  set('follow', flag(params, 'follow'));
  set('previous', flag(params, 'previous'));
  set('timestamps', flag(params, 'timestamps'));
  set('tailLines', count(params, 'tailLines'));
  set('sinceSeconds', sinceSeconds);
  set('limitBytes', count(params, 'limitBytes'));
  return options as ContainerLogOptions;
}
