/**
 * What the simulated pod answers to httpGet, tcpSocket and grpc probes. The responder listens on
 * every port the pod's containers declare: an httpGet there answers 200, a tcpSocket connects, a
 * grpc health check says SERVING; any other port refuses the connection. The annotation
 * `sim.tether.dev/probe-responses` changes a container's answers per probe kind, so failure
 * demos need no code:
 *
 *   sim.tether.dev/probe-responses: '{"web": {"readiness": {"status": 500}, "liveness": "failure", "startup": {"delayMs": 3000}}}'
 *
 * Per kind: "success" or "failure", or an object with `status` (HTTP status; 200–399 succeeds, as
 * the kubelet's HTTP prober counts it; for tcpSocket and grpc any status outside that range fails),
 * `open` (false refuses the connection) and `delayMs` (the answer comes this late; at or past the
 * probe's timeoutSeconds the probe times out).
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { Container, Probe, ProbeKind, ProbeResult } from './probeWorker.js';

export const PROBE_RESPONSES_ANNOTATION = 'sim.tether.dev/probe-responses';

export interface ProbeResponse {
  readonly status?: number;
  readonly open?: boolean;
  readonly delayMs?: number;
}

/** container name → probe kind → response. */
export type ProbeResponses = ReadonlyMap<string, Partial<Record<ProbeKind, ProbeResponse>>>;

export interface ProbeAnswer {
  readonly result: ProbeResult;
  /** The kubelet's failure text, e.g. `HTTP probe failed with statuscode: 500`. */
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
    throw new ProbeResponsesError(`annotation ${PROBE_RESPONSES_ANNOTATION}: ${field} ${why}`);
  };
  if (value === 'success') return {};
  if (value === 'failure') return { open: false };
  if (!isRecord(value)) return fail('must be "success", "failure" or an object with status, open, delayMs');
  const response: { status?: number; open?: boolean; delayMs?: number } = {};
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
    } else {
      fail(`has an unknown field "${key}" (known: status, open, delayMs)`);
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

/** A probe's port as a number: named ports resolve against every container of the pod. */
function resolvePort(pod: Pod, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (port === undefined) return undefined;
  const named = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((p) => p.name === port)?.containerPort;
  return named ?? (/^\d+$/.test(port) ? Number(port) : undefined);
}

function declared(pod: Pod, port: number): boolean {
  return (pod.spec?.containers ?? []).some((c) => (c.ports ?? []).some((p) => p.containerPort === port));
}

/**
 * The answer to a network probe (httpGet, tcpSocket, grpc) of `container`, with the kubelet's
 * failure messages. Exec probes are not answered here: they run in the shell.
 */
export function answerProbe(pod: Pod, responses: ProbeResponses, container: Container, kind: ProbeKind, probe: Probe): ProbeAnswer {
  const response = responses.get(container.name)?.[kind] ?? {};
  const delayMs = response.delayMs ?? 0;
  const ip = pod.status?.podIP ?? '';
  const rawPort = probe.httpGet?.port ?? probe.tcpSocket?.port ?? probe.grpc?.port;
  const port = resolvePort(pod, rawPort);
  const address = `${probe.httpGet?.host ?? probe.tcpSocket?.host ?? ip}:${port ?? String(rawPort)}`;
  const refused = `dial tcp ${address}: connect: connection refused`;
  const status = response.status ?? 200;
  const ok = status >= 200 && status < 400;
  const open = response.open !== false && port !== undefined && declared(pod, port);
  if (probe.httpGet) {
    const scheme = (probe.httpGet.scheme ?? 'HTTP').toLowerCase();
    const url = `${scheme}://${address}${probe.httpGet.path ?? '/'}`;
    if (!open) return { result: 'failure', message: `Get "${url}": ${refused}`, delayMs };
    return ok ? { result: 'success', message: '', delayMs } : { result: 'failure', message: `HTTP probe failed with statuscode: ${status}`, delayMs };
  }
  if (probe.grpc) {
    if (!open) return { result: 'failure', message: `timeout: failed to connect service "${address}" within ${probe.timeoutSeconds ?? 1}s: context deadline exceeded`, delayMs };
    return ok ? { result: 'success', message: '', delayMs } : { result: 'failure', message: 'service unhealthy (responded with "NOT_SERVING")', delayMs };
  }
  if (!open || !ok) return { result: 'failure', message: refused, delayMs };
  return { result: 'success', message: '', delayMs };
}
