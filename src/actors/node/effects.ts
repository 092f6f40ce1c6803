import { describeApiError, KubeApiError } from '../../adapters/kubernetes/errors.js';
import type { EventRecorder, EventSubject } from '../../adapters/kubernetes/eventRecorder.js';
import type { NodeApi } from '../../adapters/kubernetes/nodeApi.js';
import type { Logger } from '../../adapters/logger.js';
import { callWithDeadline, DeadlineExceededError } from '../../lib/callWithDeadline.js';
import { isKind } from '../../lib/errorKind.js';
import { providerKindOf, transient } from '../../providers/errors.js';
import type { NodeProvider } from '../../providers/provider.js';
import type { EffectContext } from '../../runtime/behavior.js';
import { desiredNode, labelPatch, type NodeSettings } from './nodeObject.js';
import type { NodeEffect, NodeFacts, NodeMsg, Readiness } from './protocol.js';
import { errorMessage } from '../../lib/errorMessage.js';

/**
 * The node actor's effects: the only code that talks to the NodeApi, the provider and the event
 * recorder. Expected failures become messages; two kinds of failure are crashes on purpose:
 * an unclassified error from the provider (a bug in it: the supervisor restarts the actor, and
 * repeated crashes escalate, which stops this node) and an error that is not a KubeApiError.
 */
export interface NodeActorDeps {
  readonly nodeApi: NodeApi;
  readonly provider: NodeProvider;
  readonly events: EventRecorder;
  readonly logger: Logger;
  /** Told every readiness change (the pod controller fans it out to the pod actors). */
  readonly onReadinessChange?: (readiness: Readiness) => void;
  /** Told the Node's uid after every registration (the assembler forwards it to the lease actor). */
  readonly onRegistered?: (node: { readonly name: string; readonly uid: string }) => void;
}

type Ctx = EffectContext<NodeMsg>;

export function nodeEffects(deps: NodeActorDeps, settings: NodeSettings): (effect: NodeEffect, ctx: Ctx) => Promise<void> | void {
  const { config } = settings;
  const name = config.nodeName;
  const subject = (uid: string | undefined): EventSubject => ({ kind: 'Node', apiVersion: 'v1', name, ...(uid !== undefined ? { uid } : {}) });
  const facts = async (ctx: Ctx): Promise<NodeFacts> => {
    // A missed deadline is the provider being slow or down (transient), not a bug to crash on.
    const call = <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> =>
      callWithDeadline(ctx.clock, config.ping.timeoutMs, ctx.signal, fn).catch((err: unknown) => {
        throw err instanceof DeadlineExceededError ? transient(err.message, { cause: err }) : err;
      });
    const [resources, info] = await Promise.all([call((s) => deps.provider.capacity(s)), call((s) => deps.provider.nodeInfo(s))]);
    return { resources, info };
  };

  return (effect, ctx) => {
    switch (effect.type) {
      case 'register':
        return register(ctx);
      case 'ping':
        return ping(ctx);
      case 'fetch-facts':
        return report(ctx, async () => ({ type: 'node.facts', facts: await facts(ctx) }), (error) => ({ type: 'node.facts-failed', error }));
      case 'write-status':
        return apiCall(ctx, async () => {
          await deps.nodeApi.patchNodeStatus(name, effect.status);
          return { type: 'node.status-written' };
        }, (err) => {
          if (!isKind(err, 'not-found')) deps.logger.warn('node status write failed', { node: name, error: describeApiError(err) });
          return { type: 'node.status-write-failed', error: describeApiError(err), gone: isKind(err, 'not-found'), ...retryAfter(err) };
        });
      case 'announce':
        announce(effect.readiness);
        return;
      case 'event':
        deps.events.record(subject(effect.uid), effect.eventType, effect.reason, effect.note, effect.action);
        return;
      case 'registered':
        deps.onRegistered?.({ name, uid: effect.uid });
        return;
      case 'delete-node':
        return apiCall(ctx, async () => {
          await deps.nodeApi.deleteNode(name);
          return { type: 'node.deleted' };
        }, (err) => ({ type: 'node.delete-failed', error: describeApiError(err), ...retryAfter(err) }));
      case 'schedule':
        ctx.schedule(effect.ms, effect.msg);
        return;
    }
  };

  function announce(readiness: Readiness): void {
    deps.logger.info(readiness.ready ? 'node ready' : 'node not ready', { node: name, reason: readiness.reason, message: readiness.message });
    deps.onReadinessChange?.(readiness);
  }

  async function register(ctx: Ctx): Promise<void> {
    // Provider first: an unclassified failure crashes. A classified one (the provider is down)
    // still adopts an existing Node, so that a Tether started during an outage writes NotReady
    // (and renews the Lease) instead of leaving the last run's Ready=True; creating a Node waits.
    let found: NodeFacts | undefined;
    let unavailable = '';
    try {
      found = await facts(ctx);
    } catch (err) {
      if (ctx.signal.aborted) return;
      if (providerKindOf(err) === undefined) throw err;
      unavailable = `provider ${deps.provider.name}: ${errorMessage(err)}`;
    }
    await apiCall(ctx, async () => {
      const existing = await deps.nodeApi.getNode(name);
      if (existing !== undefined && found === undefined) return { type: 'node.registered', node: existing, facts: undefined, created: false };
      if (found === undefined) return { type: 'node.register-failed', error: unavailable };
      if (existing === undefined) {
        try {
          return { type: 'node.registered', node: await deps.nodeApi.createNode(desiredNode(settings, found)), facts: found, created: true };
        } catch (err) {
          if (!(err instanceof KubeApiError && isKind(err, 'already-exists'))) throw err;
          // Created by someone between our get and create: adopt it below, next time round.
          return { type: 'node.register-failed', error: describeApiError(err), ...retryAfter(err) };
        }
      }
      const patch = labelPatch(settings, found, existing);
      const node = patch ? await deps.nodeApi.patchNodeMetadata(name, patch) : existing;
      return { type: 'node.registered', node, facts: found, created: false };
    }, (err) => {
      // Say why the Node never appears (RBAC, admission, an outage): registration retries quietly otherwise.
      deps.logger.warn('node registration failed', { node: name, error: describeApiError(err) });
      return { type: 'node.register-failed', error: describeApiError(err), ...retryAfter(err) };
    });
  }

  async function ping(ctx: Ctx): Promise<void> {
    let pingSignal: AbortSignal | undefined;
    try {
      await callWithDeadline(ctx.clock, config.ping.timeoutMs, ctx.signal, (signal) => {
        pingSignal = signal;
        return deps.provider.ping(signal);
      });
      ctx.self.tell({ type: 'node.ping-result', ok: true });
    } catch (err) {
      if (ctx.signal.aborted) return;
      const timedOut = pingSignal?.aborted === true && err === pingSignal.reason;
      if (!timedOut && providerKindOf(err) === undefined) throw err;
      const error = timedOut ? `ping timed out after ${config.ping.timeoutMs} ms` : errorMessage(err);
      ctx.self.tell({ type: 'node.ping-result', ok: false, error });
    }
  }

  /** Runs a provider call; classified failures become `onError`, unclassified ones crash. */
  async function report(ctx: Ctx, run: () => Promise<NodeMsg>, onError: (error: string) => NodeMsg): Promise<void> {
    let msg: NodeMsg;
    try {
      msg = await run();
    } catch (err) {
      if (ctx.signal.aborted) return;
      if (providerKindOf(err) === undefined) throw err;
      msg = onError(`provider ${deps.provider.name}: ${errorMessage(err)}`);
    }
    ctx.self.tell(msg);
  }
}

/** Runs Kubernetes API calls; a KubeApiError becomes `onError`, anything else is a crash. */
async function apiCall(ctx: Ctx, run: () => Promise<NodeMsg>, onError: (err: KubeApiError) => NodeMsg): Promise<void> {
  let msg: NodeMsg;
  try {
    msg = await run();
  } catch (err) {
    if (ctx.signal.aborted) return;
    if (!(err instanceof KubeApiError)) throw err;
    msg = onError(err);
  }
  if (!ctx.signal.aborted) ctx.self.tell(msg);
}


/** The server's Retry-After, for the write loop's backoff (never sooner than it asks). */
function retryAfter(err: { readonly retryAfterSeconds?: number }): { retryAfterMs?: number } {
  return err.retryAfterSeconds !== undefined ? { retryAfterMs: err.retryAfterSeconds * 1000 } : {};
}
