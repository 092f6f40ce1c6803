/**
 * Connection reuse for client-node 1.4.
 *
 * client-node 1.4 builds a fresh `https.Agent` (no keep-alive) for every request, in
 * `KubeConfig.applySecurityAuthentication` (generated API clients) and in
 * `KubeConfig.applyToFetchOptions` (Watch). So every lease renewal and status patch pays a TCP
 * and TLS handshake. {@link pooledKubeConfig} returns a KubeConfig whose two public hooks swap
 * that throwaway agent for a shared keep-alive agent with the same TLS settings (CA, client
 * certificate and key, servername, rejectUnauthorized). Agents are keyed by a digest of those
 * settings, so rotated client certificates (file or exec credentials) get a new agent.
 * Proxy agents (proxy-url in the kubeconfig) are passed through unpooled.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { RequestContext } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { ClientKubeConfig, copyInto } from './clientKubeConfig.js';
import type { Clock } from '../../lib/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import { systemClock } from '../clock.js';

type AnyAgent = http.Agent | https.Agent;

export interface ConnectionPoolOptions {
  /** Sockets per host; Infinity by default, since every watch holds one for its lifetime. */
  readonly maxSockets?: number;
  /** Idle sockets kept per host (default 16). */
  readonly maxFreeSockets?: number;
  /** TCP keep-alive probe delay in ms (default 30 s). */
  readonly keepAliveMsecs?: number;
  /** Distinct TLS identities kept before the least recently used agent is retired (default 4). */
  readonly maxAgents?: number;
  readonly clock?: Clock;
}

export interface ConnectionPoolStats {
  /** Pooled agents created (one per TLS identity). */
  readonly agentsCreated: number;
  /** Requests that were given a pooled agent. */
  readonly requestsPooled: number;
  /** Requests passed through with client-node's own agent (proxies). */
  readonly requestsUnpooled: number;
}

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const;

export class ConnectionPool implements Lifecycle {
  private readonly agents = new Map<string, AnyAgent>();
  private created = 0;
  private pooled = 0;
  private unpooled = 0;
  private last: { readonly isHttps: boolean; readonly tls: https.AgentOptions; readonly key: string } | undefined;
  private readonly life: LifecycleControl;

  constructor(private readonly options: ConnectionPoolOptions = {}) {
    this.life = new LifecycleControl({ clock: options.clock ?? systemClock, release: () => this.closeAll() });
    this.life.markReady();
  }

  get ready(): Promise<void> {
    return this.life.ready;
  }

  get done(): Promise<void> {
    return this.life.done;
  }

  /** Closes every pooled socket, including in-flight requests and watches. */
  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  /**
   * Returns the shared keep-alive agent equivalent to `template` (an agent client-node just
   * built for one request), or `template` itself if it is not a plain http/https Agent.
   */
  agentFor<A extends AnyAgent | undefined>(template: A): AnyAgent | A {
    if (template === undefined) return template;
    const proto: unknown = Object.getPrototypeOf(template);
    const isHttps = proto === https.Agent.prototype;
    if (!isHttps && proto !== http.Agent.prototype) {
      this.unpooled += 1;
      return template;
    }
    const tls = isHttps ? pickTls((template as https.Agent).options) : {};
    const key = this.keyOf(isHttps, tls);
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key); // re-insert: Map order is our LRU order
    } else {
      agent = this.create(isHttps, tls);
      this.evictBeyond((this.options.maxAgents ?? 4) - 1);
    }
    this.agents.set(key, agent);
    this.pooled += 1;
    return agent;
  }

  /**
   * client-node hands every request new Buffers of the same CA, certificate and key: comparing
   * them with the last identity's is a memcmp, where hashing them was a sha256 of a few KiB per
   * request (issue 28's profile).
   */
  private keyOf(isHttps: boolean, tls: https.AgentOptions): string {
    const last = this.last;
    if (last !== undefined && last.isHttps === isHttps && TLS_FIELDS.every((f) => sameValue(last.tls[f], tls[f]))) return last.key;
    const key = fingerprint(isHttps, tls);
    this.last = { isHttps, tls, key };
    return key;
  }

  stats(): ConnectionPoolStats {
    return { agentsCreated: this.created, requestsPooled: this.pooled, requestsUnpooled: this.unpooled };
  }

  private closeAll(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private create(isHttps: boolean, tls: https.AgentOptions): AnyAgent {
    this.created += 1;
    const common: http.AgentOptions = {
      keepAlive: true,
      keepAliveMsecs: this.options.keepAliveMsecs ?? 30_000,
      maxSockets: this.options.maxSockets ?? Infinity,
      maxFreeSockets: this.options.maxFreeSockets ?? 16,
    };
    return isHttps ? new https.Agent({ ...tls, ...common }) : new http.Agent(common);
  }

  /** Retires least recently used agents: idle sockets close now; busy ones finish their request. */
  private evictBeyond(limit: number): void {
    for (const [key, agent] of this.agents) {
      if (this.agents.size <= Math.max(0, limit)) return;
      this.agents.delete(key);
      for (const sockets of Object.values(agent.freeSockets)) {
        for (const s of sockets ?? []) s.destroy();
      }
    }
  }
}

function pickTls(options: https.AgentOptions): https.AgentOptions {
  const out: Record<string, unknown> = {};
  for (const f of TLS_FIELDS) {
    if (options[f] !== undefined) out[f] = options[f];
  }
  return out as https.AgentOptions;
}

function fingerprint(isHttps: boolean, tls: https.AgentOptions): string {
  const h = createHash('sha256').update(isHttps ? 'https' : 'http');
  for (const f of TLS_FIELDS) {
    h.update(`\0${f}=`);
    const v: unknown = tls[f];
    for (const part of Array.isArray(v) ? v : [v]) {
      if (Buffer.isBuffer(part)) h.update(part);
      else if (isRecord(part) && Buffer.isBuffer(part.buf)) h.update(part.buf); // {buf, passphrase} entries
      else h.update(String(part));
      h.update('\0');
    }
  }
  return h.digest('hex');
}

/** The same TLS setting: equal strings or flags, equal bytes, or lists (CAs, `{buf, passphrase}` entries) of the same. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b)) return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => sameValue(a[k], b[k]));
  }
  return false;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/**
 * A copy of `kc` whose requests (API clients made with `makeApiClient`, and `Watch`) use the
 * pool's keep-alive agents. Authentication (tokens, exec plugins, token files) still runs per
 * request exactly as in client-node.
 */
export function pooledKubeConfig(kc: KubeConfig, pool: ConnectionPool): KubeConfig {
  return copyInto(new PooledKubeConfig(pool), kc);
}

class PooledKubeConfig extends ClientKubeConfig {
  constructor(private readonly pool: ConnectionPool) {
    super();
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = this.pool.agentFor(context.getAgent());
    if (agent) context.setAgent(agent);
  }

  override async applyToFetchOptions(opts: https.RequestOptions): ReturnType<KubeConfig['applyToFetchOptions']> {
    const init = await super.applyToFetchOptions(opts);
    const agent = init.agent;
    if (agent instanceof http.Agent) init.agent = this.pool.agentFor(agent);
    return init;
  }
}
