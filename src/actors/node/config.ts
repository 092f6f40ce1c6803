import { DEFAULT_KUBELET_PORT, type Taint } from '../../adapters/kubernetes/model.js';
import { backoffPolicy, type BackoffPolicy } from '../../lib/backoff.js';
import { withDefaults } from '../../lib/defaults.js';
import { fieldChecks, retryProblems, type FieldProblem } from '../../lib/fieldProblem.js';

/**
 * The node actor's configuration: what the operator chooses about one virtual node, with the
 * defaults virtual-kubelet and the kubelet use. `withNodeDefaults` fills in what was left out;
 * `validateNodeConfig` lists every problem as a field path and a message.
 */

/**
 * The kubelet version the node reports (`status.nodeInfo.kubeletVersion`).
 *
 * Why this shape: kubectl prints it, and control-plane components that gate behaviour on the
 * kubelet version parse it with k8s.io/apimachinery's `version.ParseGeneric`/`ParseSemantic`, so it
 * must be valid semver with a leading `v`. The Kubernetes part is the control-plane version Tether
 * is built and tested against (tools/kube/build.sh), so version-skew checks see a kubelet no newer
 * than the apiserver. Tether's own version goes into semver *build metadata* (`+…`), as k3s does
 * (`v1.30.2+k3s1`): build metadata is ignored when versions are compared, whereas a pre-release
 * suffix (`-tether…`) would make the node compare as older than v1.36.3 and fail "at least" gates.
 */
export const DEFAULT_KUBELET_VERSION = 'v1.36.3+tether.0.1.0';

/** The same grammar as apimachinery's ParseSemantic (with the optional leading `v`). */
const SEMVER = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

export interface PingConfig {
  /** How often the provider is pinged. */
  readonly intervalMs: number;
  /** A ping that has not answered by then is aborted and counts as a failure. */
  readonly timeoutMs: number;
  /** Consecutive failures that turn a Ready node NotReady. */
  readonly failureThreshold: number;
  /** Consecutive successes that turn a NotReady node Ready again. */
  readonly successThreshold: number;
}

export interface NodeConfig {
  readonly nodeName: string;
  /** The node's InternalIP address. Required: the apiserver reaches the kubelet API there. */
  readonly internalIP: string;
  /** `status.daemonEndpoints.kubeletEndpoint.Port`: where Tether serves the kubelet API. */
  readonly kubeletPort: number;
  readonly kubeletVersion: string;
  /** Extra labels, added to the ones Tether always sets (which win on conflict). */
  readonly labels: Readonly<Record<string, string>>;
  /** Taints of a newly created Node; `undefined` means the default provider taint. */
  readonly taints: readonly Taint[] | undefined;
  readonly ping: PingConfig;
  /** Status (with a fresh heartbeat) is written at least this often. */
  readonly statusIntervalMs: number;
  /** Backoff of failed API writes (registration, status, deletion). */
  readonly retry: BackoffPolicy;
}

/** What an operator writes: everything but the name and address may be left out. */
export type NodeConfigInput = Pick<NodeConfig, 'nodeName' | 'internalIP'> &
  Partial<Omit<NodeConfig, 'nodeName' | 'internalIP' | 'ping' | 'retry'>> & {
    readonly ping?: Partial<PingConfig>;
    readonly retry?: Partial<BackoffPolicy>;
  };

export const defaultPing: PingConfig = { intervalMs: 10_000, timeoutMs: 5_000, failureThreshold: 3, successThreshold: 2 };
export const defaultNodeRetry = backoffPolicy(200, 7_000);
export const DEFAULT_STATUS_INTERVAL_MS = 60_000;

export function withNodeDefaults(input: NodeConfigInput): NodeConfig {
  return {
    nodeName: input.nodeName,
    internalIP: input.internalIP,
    kubeletPort: input.kubeletPort ?? DEFAULT_KUBELET_PORT,
    kubeletVersion: input.kubeletVersion ?? DEFAULT_KUBELET_VERSION,
    labels: input.labels ?? {},
    taints: input.taints,
    ping: withDefaults(defaultPing, input.ping),
    statusIntervalMs: input.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS,
    retry: withDefaults(defaultNodeRetry, input.retry),
  };
}

/** The taint every virtual node gets unless configured otherwise: only tolerating pods land here. */
export function defaultTaints(providerName: string): Taint[] {
  return [{ key: 'virtual-kubelet.io/provider', value: providerName, effect: 'NoSchedule' }];
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const TAINT_EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

/**
 * Every problem with a node configuration, each with its field's path in NodeConfig; empty when
 * sound. Checks values at run time, so it also guards configuration parsed from a file.
 */
export function validateNodeConfig(config: NodeConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { check, positive, positiveInt } = fieldChecks(problems);

  const name: unknown = config.nodeName;
  check(typeof name === 'string' && name.length <= 253 && DNS_SUBDOMAIN.test(name), ['nodeName'], 'a DNS subdomain name (lower case, at most 253 characters)', name);
  const ip: unknown = config.internalIP;
  check(typeof ip === 'string' && (IPV4.test(ip) || (ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip))), ['internalIP'], 'an IPv4 or IPv6 address', ip);
  const port: unknown = config.kubeletPort;
  check(typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535, ['kubeletPort'], 'a port number from 1 to 65535', port);
  const version: unknown = config.kubeletVersion;
  check(typeof version === 'string' && SEMVER.test(version), ['kubeletVersion'], 'a semantic version such as v1.36.3+tether.0.1.0', version);
  for (const [key, value] of Object.entries(config.labels as Record<string, unknown>)) {
    check(typeof value === 'string' && value.length <= 63, ['labels', key], 'a string of at most 63 characters', value);
  }
  (config.taints ?? []).forEach((taint, i) => {
    check(typeof taint.key === 'string' && taint.key !== '', ['taints', i, 'key'], 'a non-empty string', taint.key);
    check(TAINT_EFFECTS.has(taint.effect), ['taints', i, 'effect'], 'NoSchedule, PreferNoSchedule or NoExecute', taint.effect);
  });
  positive(config.ping.intervalMs, ['ping', 'intervalMs']);
  positive(config.ping.timeoutMs, ['ping', 'timeoutMs']);
  positiveInt(config.ping.failureThreshold, ['ping', 'failureThreshold']);
  positiveInt(config.ping.successThreshold, ['ping', 'successThreshold']);
  if (config.ping.intervalMs > 0 && config.ping.timeoutMs > config.ping.intervalMs) {
    problems.push({ path: ['ping', 'timeoutMs'], message: `must not exceed ping.intervalMs (${config.ping.intervalMs}), or pings would overlap` });
  }
  positive(config.statusIntervalMs, ['statusIntervalMs']);
  problems.push(...retryProblems(config.retry, ['retry']));
  return problems;
}
