/**
 * Tether's Prometheus metrics (prom-client), in a registry of their own so several agents (or
 * tests) in one process never share counters. Two sorts:
 * - event counters and histograms fed where the event happens (provider calls);
 * - gauges derived from the actor tree and the rate limiters, computed by collect callbacks when
 *   /metrics is scraped, from one walk of the tree per scrape;
 * - gauges a provider contributes through the contract (MetricsProvider, providerGauges.ts).
 * The metric names are listed in docs/operating.md.
 */
import { systemClock } from '../adapters/clock.js';
import type { Clock } from '../lib/clock.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ActorRegistry } from '../runtime/actorRegistry.js';
import type { AgentView } from './agentView.js';
import { SEP, treeFigures, type TreeFigures } from './treeFigures.js';
import { ProviderGauges } from './providerGauges.js';
import type { PriorityStats } from '../adapters/kubernetes/rateLimiter.js';

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type CallOutcome = 'ok' | 'not-found' | 'invalid-input' | 'transient' | 'error';

export class TetherMetrics {
  readonly registry = new Registry();
  private readonly providerCalls: Counter<'node' | 'method' | 'outcome'>;
  private readonly providerLatency: Histogram<'node' | 'method' | 'outcome'>;
  private readonly statusLatency: Histogram<'node'>;
  private readonly kubeletRejections: Counter<'node' | 'reason'>;
  private readonly uncaughtErrors: Counter<'kind'>;
  private agent: AgentView | undefined;
  private readonly providerGauges: ProviderGauges;
  private figures: { at: number; value: TreeFigures } | undefined;
  private readonly clock: Clock;

  constructor(options: { readonly processMetrics?: boolean; readonly clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'tether_' });
    this.providerCalls = new Counter({ name: 'tether_provider_calls_total', help: 'Provider calls by method and outcome.', labelNames: ['node', 'method', 'outcome'], registers });
    this.providerLatency = new Histogram({ name: 'tether_provider_call_duration_seconds', help: 'Provider call latency by method and outcome.', labelNames: ['node', 'method', 'outcome'], buckets: LATENCY_BUCKETS, registers });
    this.statusLatency = new Histogram({ name: 'tether_pod_status_write_latency_seconds', help: 'From a provider status reaching its pod actor to the host pod carrying it.', labelNames: ['node'], buckets: LATENCY_BUCKETS, registers });
    this.kubeletRejections = new Counter({ name: 'tether_kubelet_rejected_requests_total', help: "Requests and connections the kubelet API refused, by node and reason (src/kubelet/rejections.ts).", labelNames: ['node', 'reason'], registers });
    this.uncaughtErrors = new Counter({ name: 'tether_process_uncaught_errors_total', help: 'Uncaught exceptions and unhandled rejections the process survived or exited on, by kind.', labelNames: ['kind'], registers });
    this.treeGauges(registers);
    this.rateLimiterGauges(registers);
    this.haGauges(registers);
    this.providerGauges = new ProviderGauges(this.registry);
  }

  /**
   * A node's provider: the gauges it contributes (MetricsProvider), read at scrape time with the
   * node's label. A provider without any adds nothing.
   */
  observeProvider(node: string, provider: object): void {
    this.providerGauges.observe(node, provider);
  }

  /** The agent whose tree and rate limiters the scrape-time gauges read. */
  observe(agent: AgentView): this {
    this.agent = agent;
    return this;
  }

  recordStatusLatency(node: string, seconds: number): void {
    this.statusLatency.observe({ node }, seconds);
  }

  /** A kubelet API refusal on `node` (the kubelet server's `rejections` sink). */
  recordKubeletRejection(node: string, reason: string): void {
    this.kubeletRejections.inc({ node, reason });
  }

  /** An error that reached the process's uncaughtException/unhandledRejection handler. */
  recordUncaughtError(kind: 'uncaughtException' | 'unhandledRejection'): void {
    this.uncaughtErrors.inc({ kind });
  }

  recordProviderCall(node: string, method: string, outcome: CallOutcome, seconds: number): void {
    this.providerCalls.inc({ node, method, outcome });
    this.providerLatency.observe({ node, method, outcome }, seconds);
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    this.figures = undefined;
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * The series of one virtual node (those labelled `node="<node>"`), as Prometheus text, for that
   * node's kubelet /metrics; families without such a series are left out. Node names are DNS
   * names, so the label is matched as written, with no escaping to undo.
   */
  async renderNode(node: string): Promise<string> {
    return seriesOfNode(await this.registry.metrics(), node);
  }

  /** One walk per scrape, shared by every tree gauge. */
  private currentFigures(): TreeFigures | undefined {
    const registry: ActorRegistry | undefined = this.agent?.system.registry;
    if (registry === undefined) return undefined;
    const now = this.clock.now();
    if (this.figures === undefined || now - this.figures.at > 1_000) this.figures = { at: now, value: treeFigures(registry.snapshot()) };
    return this.figures.value;
  }

  private treeGauges(registers: Registry[]): void {
    const figures = (): TreeFigures | undefined => this.currentFigures();
    const byKind = (name: string, help: string, pick: (f: TreeFigures) => Map<string, number>): void => {
      new Gauge({ name, help, labelNames: ['kind'], registers, collect() {
        this.reset();
        const f = figures();
        if (f) for (const [kind, value] of pick(f)) this.set({ kind }, value);
      } });
    };
    new Gauge({ name: 'tether_actors', help: 'Live actors and supervisors by kind and status.', labelNames: ['kind', 'status'], registers, collect() {
      this.reset();
      for (const [key, value] of figures()?.actors ?? []) {
        const [kind, status] = key.split(SEP) as [string, string];
        this.set({ kind, status }, value);
      }
    } });
    byKind('tether_actor_restarts', 'Restarts of the live actors, summed by kind (an actor given up shows as status "failed" in tether_actors).', (f) => f.restarts);
    byKind('tether_actor_mailbox_depth', 'Messages waiting in mailboxes, summed by kind.', (f) => f.mailboxDepth);
    byKind('tether_actor_mailbox_depth_max', 'The deepest mailbox of each kind.', (f) => f.mailboxDepthMax);
    new Gauge({ name: 'tether_pods', help: 'Pod actors by virtual node and provider phase ("Unknown" before the provider reports).', labelNames: ['node', 'phase'], registers, collect() {
      this.reset();
      for (const [key, value] of figures()?.pods ?? []) {
        const [node, phase] = key.split(SEP) as [string, string];
        this.set({ node, phase }, value);
      }
    } });
    new Gauge({ name: 'tether_node_ready', help: 'Whether the virtual node reports Ready (1) or not (0).', labelNames: ['node'], registers, collect() {
      this.reset();
      for (const [node, ready] of figures()?.nodeReady ?? []) this.set({ node }, ready ? 1 : 0);
    } });
    new Gauge({ name: 'tether_lease_renew_lag_seconds', help: 'How late the last Lease renewal was against its schedule.', labelNames: ['node'], registers, collect() {
      this.reset();
      for (const [node, ms] of figures()?.leaseLagMs ?? []) this.set({ node }, ms / 1000);
    } });
  }

  /** Scale-out (src/ha): the node-to-replica map as this replica sees it, and how many replicas are live. */
  private haGauges(registers: Registry[]): void {
    const holders = (): ReturnType<NonNullable<AgentView['nodeHolders']>> => this.agent?.nodeHolders?.();
    new Gauge({ name: 'tether_ha_node_holder', help: 'Under leader election: 1 for the replica seen driving each virtual node (none for a node nobody holds).', labelNames: ['node', 'replica'], registers, collect() {
      this.reset();
      for (const [node, replica] of holders()?.nodes ?? []) if (replica !== undefined) this.set({ node, replica }, 1);
    } });
    new Gauge({ name: 'tether_ha_replicas', help: 'Under leader election: live replicas seen through their membership Leases, this one included.', registers, collect() {
      this.reset();
      const seen = holders();
      if (seen) this.set(seen.replicas.length);
    } });
  }

  private rateLimiterGauges(registers: Registry[]): void {
    const stats = (): ReturnType<NonNullable<AgentView['rateLimiterStats']>> => this.agent?.rateLimiterStats?.() ?? new Map();
    const perPriority = (name: string, help: string, pick: (s: PriorityStats) => number): void => {
      new Gauge({ name, help, labelNames: ['node', 'priority'], registers, collect() {
        this.reset();
        for (const [node, byPriority] of stats()) {
          for (const [priority, s] of Object.entries(byPriority)) this.set({ node, priority }, pick(s));
        }
      } });
    };
    const agent = (): AgentView | undefined => this.agent;
    new Gauge({ name: 'tether_api_requests_total', help: 'Finished host API requests by node, verb and HTTP code ("network" when no response came back).', labelNames: ['node', 'verb', 'code'], registers, collect() {
      this.reset();
      for (const [node, counts] of agent()?.apiRequestCounts?.() ?? []) {
        for (const [key, value] of counts) {
          const [verb = '', code = ''] = key.split(' ');
          this.set({ node, verb, code }, value);
        }
      }
    } });
    new Gauge({ name: 'tether_supervision_events_total', help: 'Since start: supervisors that escalated a failure, and children given up after their restart budget.', labelNames: ['outcome'], registers, collect() {
      this.reset();
      const counts = agent()?.system.supervisionEvents;
      if (!counts) return;
      this.set({ outcome: 'escalation' }, counts.escalations);
      this.set({ outcome: 'give-up' }, counts.givenUp);
    } });
    new Gauge({ name: 'tether_actor_restarts_total', help: 'Since start: restarts decided by a supervisor, by the restarted actor\'s kind (role); unlike tether_actor_restarts it keeps the restarts of actors since gone.', labelNames: ['kind'], registers, collect() {
      this.reset();
      for (const [kind, value] of agent()?.system.restartsByKind ?? []) this.set({ kind }, value);
    } });
    perPriority('tether_api_rate_limiter_wait_seconds_total', 'Cumulative time requests waited for the client-side rate limiter.', (s) => s.waitMs / 1000);
    perPriority('tether_api_rate_limiter_started_total', 'Requests let through by the rate limiter.', (s) => s.started);
    perPriority('tether_api_rate_limiter_queued', 'Requests waiting for the rate limiter now.', (s) => s.queued);
    perPriority('tether_api_rate_limiter_dropped_total', 'Requests refused unsent because their queue was full (priority="event": Events past 1,000 queued).', (s) => s.dropped);
  }
}

/** The lines of an exposition that belong to `node`: its samples, with their families' HELP and TYPE. */
export function seriesOfNode(exposition: string, node: string): string {
  const label = `node="${node}"`;
  const out: string[] = [];
  let header: string[] = [];
  for (const line of exposition.split('\n')) {
    if (line.startsWith('# HELP ')) header = [line];
    else if (line.startsWith('#')) header.push(line);
    else if (line.includes(`{${label}`) || line.includes(`,${label}`)) {
      out.push(...header, line);
      header = [];
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
