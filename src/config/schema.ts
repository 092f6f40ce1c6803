/**
 * The whole config file (`tether.yaml`): the host cluster, the virtual nodes, the servers' ports,
 * rate limits, restart policies, shutdown and log level. Every mapping is strict: a field the
 * schema does not know is an error, never silently ignored. See docs/configuration.md.
 */
import { z } from 'zod';
import { logLevel, nonEmptyString, nonNegativeNumber, portOrOff, positiveInt, positiveNumber, rateLimit } from '../lib/schemaPrimitives.js';
import { nodeSchema } from './node.js';
import { restartPoliciesSchema } from './restartPolicies.js';

/** Which kubeconfig reaches the host cluster (where the virtual nodes register). */
const hostSchema = z.strictObject({
  /** A kubeconfig file. Default: in-cluster when running in a pod, else $KUBECONFIG, then ~/.kube/config. */
  kubeconfig: nonEmptyString.optional(),
  context: nonEmptyString.optional(),
  /** Force the in-cluster service account (an error outside a pod). */
  inCluster: z.boolean('true or false').optional(),
}, 'a mapping (kubeconfig, context, inCluster)');

const server = z.strictObject({
  /** 0 turns the server off. */
  port: portOrOff,
  address: nonEmptyString.optional(),
  /**
   * Introspection only: serve the actor tree without a TokenReview/SubjectAccessReview even when
   * bound beyond loopback (the sandbox's addresses, private to the machine). Default false.
   */
  anonymous: z.boolean('true or false').optional(),
}, 'a mapping with port and optionally address and anonymous');

const MAX_MESSAGE_BYTES_LIMIT = 64 * 1024 * 1024;

/**
 * The bounds of exec, attach and port-forward on each node's kubelet API (docs/kubelet-api.md,
 * "Bounds"). Defaults: 64 per node, 16 per user, 16 per pod, idle 14400 s (the kubelet's
 * streamingConnectionIdleTimeout, 4 h), absolute 86400 s (24 h; 0: none, as the kubelet), 1 MiB messages.
 */
const kubeletStreamsSchema = z.strictObject({
  maxPerNode: positiveInt.optional(),
  /** Per user authenticated by token; the API server's client certificate is not counted per user. */
  maxPerUser: positiveInt.optional(),
  maxPerPod: positiveInt.optional(),
  idleTimeoutSeconds: positiveNumber.optional(),
  maxSessionSeconds: nonNegativeNumber.optional(),
  maxMessageBytes: positiveInt.max(MAX_MESSAGE_BYTES_LIMIT, `a positive integer up to ${MAX_MESSAGE_BYTES_LIMIT} (64 MiB)`).optional(),
}, 'a mapping (maxPerNode, maxPerUser, maxPerPod, idleTimeoutSeconds, maxSessionSeconds, maxMessageBytes)');

export const configSchema = z.strictObject({
  host: hostSchema.optional(),
  logLevel: logLevel.optional(),
  nodes: z.array(nodeSchema, 'a list of virtual nodes').min(1, 'at least one virtual node'),
  /**
   * The operator's HTTP servers: `introspection` (the actor tree page, /actors, /healthz, /readyz,
   * /metrics; default 127.0.0.1:10256) and optionally `metrics` (the same routes on another
   * address, e.g. 0.0.0.0 for a Prometheus scraper while introspection stays on loopback).
   */
  ports: z.strictObject({ introspection: server.optional(), metrics: server.optional() }, 'a mapping with introspection and/or metrics').optional(),
  /**
   * Each node's kubelet API (HTTPS on its kubeletPort): where it listens, the CA whose client
   * certificates it accepts (the API server's kubelet client certificate), a serving
   * certificate (self-signed when absent), the deadline of its own work and its streams' bounds.
   */
  kubeletApi: z.strictObject({
    address: nonEmptyString.optional(),
    clientCAFile: nonEmptyString.optional(),
    certFile: nonEmptyString.optional(),
    keyFile: nonEmptyString.optional(),
    /** How often the three files are read again for a rotation (default 60000; at least 1000). */
    certificateCheckIntervalMs: positiveNumber.optional(),
    /** false: no kubelet API at all (kubectl logs then fails with a clear error from the API server). */
    enabled: z.boolean('true or false').optional(),
    /** Deadline of the provider calls behind /pods, /runningpods/, stats, log opens and a stream's pod check (default 10; then 503). */
    requestTimeoutSeconds: positiveNumber.optional(),
    streams: kubeletStreamsSchema.optional(),
  }, 'a mapping (address, clientCAFile, certFile, keyFile, certificateCheckIntervalMs, enabled, requestTimeoutSeconds, streams)').optional(),
  /** Client-side limit on each virtual node's host API requests (default qps 50, burst 100, as the kubelet). */
  rateLimit: rateLimit.optional(),
  /** The host Events' own limit, apart from `rateLimit` (default qps 50, burst 100: the kubelet's eventRecordQPS and eventBurst). */
  eventRateLimit: rateLimit.optional(),
  /**
   * High availability: several replicas share the virtual nodes, each node driven by whichever
   * replica holds its Lease lock (`tether-node-<node>` in `namespace`). Off when absent. The
   * TETHER_LEADER_ELECTION_* environment variables (or --leader-election-* flags) override its fields.
   */
  leaderElection: z.strictObject({
    namespace: nonEmptyString,
    /** Unique per replica; default the pod's name ($POD_NAME, else $HOSTNAME). */
    identity: nonEmptyString.optional(),
    leaseDurationMs: positiveNumber.optional(),
    renewDeadlineMs: positiveNumber.optional(),
    retryPeriodMs: positiveNumber.optional(),
  }, 'a mapping (namespace, identity, leaseDurationMs, renewDeadlineMs, retryPeriodMs)').optional(),
  restartPolicies: restartPoliciesSchema.optional(),
  shutdown: z.strictObject({
    /** The whole shutdown, from the signal to exit. */
    timeoutMs: positiveNumber.optional(),
    /** Delete each virtual node's Node object on shutdown (default false: the node goes NotReady). */
    deleteNodeOnShutdown: z.boolean('true or false').optional(),
  }, 'a mapping (timeoutMs, deleteNodeOnShutdown)').optional(),
}, 'a mapping with at least a nodes list').superRefine((config, ctx) => {
  const seen = new Map<string, number>();
  config.nodes.forEach((node, i) => {
    const first = seen.get(node.name);
    if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'name'], message: `duplicate node name '${node.name}' (also nodes[${first}].name)` });
    else seen.set(node.name, i);
  });
});

export type TetherConfig = z.infer<typeof configSchema>;

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
export const DEFAULT_LOG_LEVEL = 'info';
