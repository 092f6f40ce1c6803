/**
 * What the simulated pod answers to httpGet, tcpSocket and grpc probes. The responder listens on
 * every port the pod's containers declare: an httpGet there answers 200, a tcpSocket connects, a
 * grpc health check says SERVING; any other port refuses the connection. The annotation
 * `sim.tether.dev/probe-responses` changes a container's answers per probe kind, so failure
 * demos need no code:
 *
 *   sim.tether.dev/probe-responses: '{"web": {"readiness": {"status": 500}, "liveness": "failure", "startup": {"delayMs": 3000}}}'
 *
 * Per kind: "success" or "failure", or an object with `status` (HTTP status; 200–299 succeeds; a
 * 3xx stands for a redirect the prober does not follow, to another host: success with the
 * kubelet's `ProbeWarning`; anything else fails; for tcpSocket and grpc any status outside
 * 200–399 fails), `body` (the HTTP response body, which a warning quotes to its first 10 KiB),
 * `open` (false refuses the connection) and `delayMs` (the answer comes this late; at or past the
 * probe's timeoutSeconds the probe times out, in the words of the kubelet's HTTP, TCP or gRPC
 * client). Ports resolve as the kubelet's ResolveContainerPort does, against the probed container
 * alone: one that does not is a probe error, whose result the kubelet throws away.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { goDuration } from '../crashLoopBackOff.js';
import { probeTiming, type Container, type Probe, type ProbeKind } from './probeWorker.js';

export const PROBE_RESPONSES_ANNOTATION = 'sim.tether.dev/probe-responses';

export interface ProbeResponse {
  readonly status?: number;
  readonly open?: boolean;
  readonly delayMs?: number;
  readonly body?: string;
}

/** container name → probe kind → response. */
export type ProbeResponses = ReadonlyMap<string, Partial<Record<ProbeKind, ProbeResponse>>>;

/**
 * A probe attempt's outcome as pkg/probe has it: `warning` counts as success with a
 * `ProbeWarning` Event; `error` (the port does not resolve, the exec could not run) is thrown
 * away by the kubelet's worker after an `Unhealthy` Event: the probe's value does not move.
 */
export type AnswerResult = 'success' | 'warning' | 'failure' | 'error';

export interface ProbeAnswer {
  readonly result: AnswerResult;
  /** The kubelet's text, e.g. `HTTP probe failed with statuscode: 500`. */
  readonly message: string;
  /** How long the answer takes. */
  readonly delayMs: number;
}

export class ProbeResponsesError extends Error {}

const KINDS: readonly ProbeKind[] = ['startup', 'readiness', 'liveness'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseResponse(value: unknown, field: string): ProbeResponse {
  const fail = (why: string): never => {
    // A field's own problem reads `web.readiness.status must …`; the response's, `web.readiness must …`.
    throw new ProbeResponsesError(`annotation ${PROBE_RESPONSES_ANNOTATION}: ${field}${why.startsWith('.') ? '' : ' '}${why}`);
  };
  if (value === 'success') return {};
  if (value === 'failure') return { open: false };
  if (!isRecord(value)) return fail('must be "success", "failure" or an object with status, body, open, delayMs');
  const response: { status?: number; open?: boolean; delayMs?: number; body?: string } = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'status') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 100 || v > 599) fail('.status must be an HTTP status code (100–599)');
      response.status = v as number;
    } else if (key === 'open') {
      if (typeof v !== 'boolean') fail('.open must be true or false');
      response.open = v as boolean;
    } else if (key === 'delayMs') {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail('.delayMs must be a number of milliseconds, 0 or more');
      response.delayMs = v as number;
    } else if (key === 'body') {
      if (typeof v !== 'string') fail('.body must be a string');
      response.body = v as string;
    } else {
      fail(`has an unknown field "${key}" (known: status, body, open, delayMs)`);
    }
  }
  return response;
}

/** The pod's probe responses; throws ProbeResponsesError naming the annotation and the bad field. */
export function parseProbeResponses(pod: Pod): ProbeResponses {
  const text = pod.metadata?.annotations?.[PROBE_RESPONSES_ANNOTATION];
  const responses = new Map<string, Partial<Record<ProbeKind, ProbeResponse>>>();
  if (text === undefined) return responses;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ProbeResponsesError(`annotation ${PROBE_RESPONSES_ANNOTATION}: not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(parsed)) throw new ProbeResponsesError(`annotation ${PROBE_RESPONSES_ANNOTATION}: must be an object of container name to probe kinds`);
  for (const [container, kinds] of Object.entries(parsed)) {
    if (!isRecord(kinds)) throw new ProbeResponsesError(`annotation ${PROBE_RESPONSES_ANNOTATION}: ${container} must be an object of probe kind (startup, readiness, liveness) to response`);
    const byKind: Partial<Record<ProbeKind, ProbeResponse>> = {};
    for (const [kind, value] of Object.entries(kinds)) {
      if (!(KINDS as readonly string[]).includes(kind)) throw new ProbeResponsesError(`annotation ${PROBE_RESPONSES_ANNOTATION}: ${container}.${kind} is not a probe kind (startup, readiness, liveness)`);
      byKind[kind as ProbeKind] = parseResponse(value, `${container}.${kind}`);
    }
    responses.set(container, byKind);
  }
  return responses;
}

/** What pkg/probe/http keeps of a response body: its first 10 KiB (maxRespBodyLength). */
const MAX_BODY_BYTES = 10 * 1024;

function truncatedBody(body: string): string {
  const bytes = Buffer.from(body, 'utf8');
  return bytes.length <= MAX_BODY_BYTES ? body : bytes.subarray(0, MAX_BODY_BYTES).toString('utf8');
}

type ResolvedPort = { readonly port: number } | { readonly error: string };

/** probe.ResolveContainerPort: a number, or a name of the probed container's ports, else a number written as a string. */
function resolvePort(container: Container, port: number | string | undefined): ResolvedPort {
  let value = port ?? 0;
  if (typeof value === 'string') {
    const named = (container.ports ?? []).find((p) => p.name === value)?.containerPort;
    // Go's strconv.Atoi: an optional sign and decimal digits.
    if (named === undefined && !/^[+-]?\d+$/.test(value)) return { error: `strconv.Atoi: parsing ${JSON.stringify(value)}: invalid syntax` };
    value = named ?? Number(value);
  }
  return value > 0 && value < 65536 ? { port: value } : { error: `invalid port number: ${value}` };
}

/** Whether a container of the pod listens there: the simulated responder answers on declared ports. */
function declared(pod: Pod, port: number): boolean {
  return (pod.spec?.containers ?? []).some((c) => (c.ports ?? []).some((p) => p.containerPort === port));
}

/**
 * The answer to a network probe (httpGet, tcpSocket, grpc) of `container`, with the kubelet's
 * messages; `delayMs` is when it comes (the timeout, when it times out). Exec probes are not
 * answered here: they run in the shell.
 */
export function answerProbe(pod: Pod, responses: ProbeResponses, container: Container, kind: ProbeKind, probe: Probe): ProbeAnswer {
  const response = responses.get(container.name)?.[kind] ?? {};
  const { timeoutMs } = probeTiming(probe);
  const timeout = goDuration(timeoutMs);
  const late = (response.delayMs ?? 0) >= timeoutMs;
  const delayMs = late ? timeoutMs : response.delayMs ?? 0;
  const status = response.status ?? 200;
  const ip = pod.status?.podIP ?? '';
  if (probe.grpc) {
    const address = `${ip}:${probe.grpc.port}`;
    if (response.open === false || !declared(pod, probe.grpc.port)) {
      // grpc.WithBlock dials until the deadline.
      return { result: 'failure', message: `timeout: failed to connect service ${JSON.stringify(address)} within ${timeout}: context deadline exceeded`, delayMs: timeoutMs };
    }
    if (late) return { result: 'failure', message: `timeout: health rpc did not complete within ${timeout}`, delayMs };
    return status >= 200 && status < 400 ? { result: 'success', message: '', delayMs } : { result: 'failure', message: 'service unhealthy (responded with "NOT_SERVING")', delayMs };
  }
  const resolved = resolvePort(container, probe.httpGet?.port ?? probe.tcpSocket?.port);
  if ('error' in resolved) return { result: 'error', message: resolved.error, delayMs: 0 };
  const address = `${probe.httpGet?.host ?? probe.tcpSocket?.host ?? ip}:${resolved.port}`;
  const refused = `dial tcp ${address}: connect: connection refused`;
  const open = response.open !== false && declared(pod, resolved.port);
  if (probe.httpGet) {
    const url = `${(probe.httpGet.scheme ?? 'HTTP').toLowerCase()}://${address}${probe.httpGet.path ?? '/'}`;
    if (!open) return { result: 'failure', message: `Get ${JSON.stringify(url)}: ${refused}`, delayMs: 0 };
    if (late) return { result: 'failure', message: `Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, delayMs };
    if (status >= 300 && status < 400) return { result: 'warning', message: `Probe terminated redirects, Response body: ${truncatedBody(response.body ?? '')}`, delayMs };
    // The kubelet leaves the body out of a failure's message (issue 99425).
    return status >= 200 && status < 300 ? { result: 'success', message: '', delayMs } : { result: 'failure', message: `HTTP probe failed with statuscode: ${status}`, delayMs };
  }
  if (!open || !(status >= 200 && status < 400)) return { result: 'failure', message: refused, delayMs: 0 };
  if (late) return { result: 'failure', message: `dial tcp ${address}: i/o timeout`, delayMs };
  return { result: 'success', message: '', delayMs };
}
