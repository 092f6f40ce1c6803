/**
 * Flags and environment variables that override the config file. Precedence, highest first:
 * command-line flag, `TETHER_*` environment variable, the file, the defaults. An override is set
 * into the document before validation, so a bad override is reported under its own name
 * (`--metrics-port: ports.metrics.port: expected …`).
 */
export interface OverrideSpec {
  /** The field in the config file. */
  readonly field: readonly string[];
  /** The `tether run` flag, without dashes. */
  readonly flag: string;
  readonly env: string;
  readonly kind: 'string' | 'number' | 'boolean';
  readonly help: string;
}

export const OVERRIDES: readonly OverrideSpec[] = [
  { field: ['logLevel'], flag: 'log-level', env: 'TETHER_LOG_LEVEL', kind: 'string', help: 'debug, info, warn, error or silent' },
  { field: ['host', 'kubeconfig'], flag: 'kubeconfig', env: 'TETHER_KUBECONFIG', kind: 'string', help: 'kubeconfig file for the host cluster' },
  { field: ['host', 'context'], flag: 'context', env: 'TETHER_CONTEXT', kind: 'string', help: 'context in that kubeconfig' },
  { field: ['ports', 'introspection', 'port'], flag: 'introspection-port', env: 'TETHER_INTROSPECTION_PORT', kind: 'number', help: 'introspection server port (0: off)' },
  { field: ['ports', 'metrics', 'port'], flag: 'metrics-port', env: 'TETHER_METRICS_PORT', kind: 'number', help: 'metrics server port (0: off)' },
  { field: ['shutdown', 'timeoutMs'], flag: 'shutdown-timeout-ms', env: 'TETHER_SHUTDOWN_TIMEOUT_MS', kind: 'number', help: 'bound on a clean shutdown' },
  { field: ['shutdown', 'deleteNodeOnShutdown'], flag: 'delete-node-on-shutdown', env: 'TETHER_DELETE_NODE_ON_SHUTDOWN', kind: 'boolean', help: 'delete the Node objects on shutdown' },
  // High availability: what the Helm chart sets from the pod (docs/deployment.md).
  { field: ['leaderElection', 'namespace'], flag: 'leader-election-namespace', env: 'TETHER_LEADER_ELECTION_NAMESPACE', kind: 'string', help: 'turns leader election on: one Lease lock per node in this namespace' },
  { field: ['leaderElection', 'identity'], flag: 'leader-election-identity', env: 'TETHER_LEADER_ELECTION_IDENTITY', kind: 'string', help: "this replica's identity (default $POD_NAME, else $HOSTNAME)" },
  { field: ['leaderElection', 'leaseDurationMs'], flag: 'leader-election-lease-duration-ms', env: 'TETHER_LEADER_ELECTION_LEASE_DURATION_MS', kind: 'number', help: 'how long a lock is trusted' },
  { field: ['leaderElection', 'renewDeadlineMs'], flag: 'leader-election-renew-deadline-ms', env: 'TETHER_LEADER_ELECTION_RENEW_DEADLINE_MS', kind: 'number', help: 'a holder that has not renewed by then gives the node up' },
  { field: ['leaderElection', 'retryPeriodMs'], flag: 'leader-election-retry-period-ms', env: 'TETHER_LEADER_ELECTION_RETRY_PERIOD_MS', kind: 'number', help: 'how often a holder renews and a candidate looks' },
];

/**
 * Every node's `internalIP` when the file leaves it out: the chart sets it from the pod's own IP
 * (downward API, `status.podIP`), the address where the API server reaches this replica's kubelet
 * API. A node that names an address in the file keeps it.
 */
export const NODE_INTERNAL_IP_ENV = 'TETHER_NODE_INTERNAL_IP';

/** The config file's path from the environment, when `--config` is not given. */
export const CONFIG_ENV = 'TETHER_CONFIG';

export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

export interface AppliedOverrides {
  readonly raw: unknown;
  /** Field path (as printed) → the flag or variable that set it. */
  readonly sources: ReadonlyMap<string, string>;
}

/** Sets every given override into a copy of the parsed document. */
export function applyOverrides(raw: unknown, env: NodeJS.ProcessEnv, flags: FlagValues): AppliedOverrides {
  const sources = new Map<string, string>();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { raw, sources };
  const out = structuredClone(raw) as Record<string, unknown>;
  for (const spec of OVERRIDES) {
    const fromFlag = flags[spec.flag];
    const fromEnv = env[spec.env];
    const [value, source] = fromFlag !== undefined ? [fromFlag, `--${spec.flag}`] : fromEnv !== undefined && fromEnv !== '' ? [fromEnv, spec.env] : [undefined, ''];
    if (value === undefined) continue;
    setIn(out, spec.field, coerce(value, spec.kind));
    sources.set(spec.field.join('.'), source);
  }
  const internalIP = env[NODE_INTERNAL_IP_ENV];
  if (internalIP !== undefined && internalIP !== '' && Array.isArray(out['nodes'])) {
    out['nodes'].forEach((node: unknown, i) => {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
      const fields = node as Record<string, unknown>;
      if (fields['internalIP'] !== undefined) return;
      fields['internalIP'] = internalIP;
      sources.set(`nodes[${i}].internalIP`, NODE_INTERNAL_IP_ENV);
    });
  }
  return { raw: out, sources };
}

/** "8080" → 8080, "true" → true; anything else stays a string for the schema to reject by name. */
export function coerce(value: string | boolean, kind: OverrideSpec['kind']): unknown {
  if (typeof value === 'boolean' || kind === 'string') return value;
  if (kind === 'number') return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  const lower = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(lower)) return true;
  if (['false', '0', 'no'].includes(lower)) return false;
  return value;
}

function setIn(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = target;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[path[path.length - 1] ?? ''] = value;
}
