import type { EventRecorder, EventSubject } from '../../adapters/kubernetes/eventRecorder.js';
import type { NodeApi } from '../../adapters/kubernetes/nodeApi.js';
import type { Logger } from '../../adapters/logger.js';
import { callWithDeadline, DeadlineExceededError } from '../../lib/callWithDeadline.js';
import { transient } from '../../providers/errors.js';
import type { NodeProvider } from '../../providers/provider.js';
import type { EffectContext } from '../../runtime/behavior.js';
import { reportTo, withSchedule, type Classifier, type Failure } from '../../runtime/effectOutcome.js';
import { apiFailure, providerFailure } from '../effectFailures.js';
import { desiredNode, labelPatch, type NodeSettings } from './nodeObject.js';
import type { NodeEffect, NodeFacts, NodeMsg, Readiness } from './protocol.js';
import { definedOnly } from '../../lib/defaults.js';

/**
 * The node actor's effects: the only code that talks to the NodeApi, the provider and the event
 * recorder. Outcomes come back as messages (runtime/effectOutcome.ts, classifiers in
 * actors/effectFailures.ts); two kinds of failure are crashes on purpose:
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
  const subject = (uid: string | undefined): EventSubject => ({ kind: 'Node', apiVersion: 'v1', name, ...definedOnly({ uid }) });
  const facts = async (ctx: Ctx): Promise<NodeFacts> => {
    // A missed deadline is the provider being slow or down (transient), not a bug to crash on.
    const call = <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> =>
      callWithDeadline(ctx.clock, config.ping.timeoutMs, ctx.signal, fn).catch((err: unknown) => {
        throw err instanceof DeadlineExceededError ? transient(err.message, { cause: err }) : err;
      });
    const [resources, info] = await Promise.all([call((s) => deps.provider.capacity(s)), call((s) => deps.provider.nodeInfo(s))]);
    return { resources, info };
  };

  return withSchedule<NodeMsg, NodeEffect>((effect, ctx) => {
    switch (effect.type) {
      case 'register':
        return register(ctx);
      case 'ping':
        return ping(ctx);
      case 'fetch-facts':
        return reportTo(ctx)(() => facts(ctx), {
          classify: providerFailure,
          done: (found) => ({ type: 'node.facts-fetched', facts: found }),
          failed: (failure) => ({ type: 'node.facts-fetch-failed', error: providerError(failure) }),
        });
      case 'write-status':
        return reportTo(ctx)(() => deps.nodeApi.patchNodeStatus(name, effect.status), {
          classify: apiFailure,
          done: () => ({ type: 'node.status-written' }),
          failed: (failure) => {
            if (failure.kind !== 'not-found') deps.logger.warn('node status write failed', { node: name, error: failure.message });
            return { type: 'node.status-write-failed', error: failure.message, gone: failure.kind === 'not-found', ...retryAfter(failure) };
          },
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
        return reportTo(ctx)(() => deps.nodeApi.deleteNode(name), {
          classify: apiFailure,
          done: () => ({ type: 'node.deleted' }),
          failed: (failure) => ({ type: 'node.delete-failed', error: failure.message, ...retryAfter(failure) }),
        });
    }
  });

  function providerError(failure: Failure): string {
    return `provider ${deps.provider.name}: ${failure.message}`;
  }

  function announce(readiness: Readiness): void {
    deps.logger.info(readiness.ready ? 'node ready' : 'node not ready', { node: name, reason: readiness.reason, message: readiness.message });
    deps.onReadinessChange?.(readiness);
  }

  async function register(ctx: Ctx): Promise<void> {
    // Provider first: an unclassified failure crashes. A classified one (the provider is down)
    // still adopts an existing Node, so that a Tether started during an outage writes NotReady
    // (and renews the Lease) instead of leaving the last run's Ready=True; creating a Node waits.
    const found = await facts(ctx).catch((err: unknown) => {
      const failure = providerFailure(err);
      if (failure === undefined) throw err;
      return providerError(failure);
    });
    await reportTo(ctx)(() => registerNode(typeof found === 'string' ? undefined : found, typeof found === 'string' ? found : ''), {
      classify: apiFailure,
      done: (msg) => msg,
      failed: (failure) => {
        // Say why the Node never appears (RBAC, admission, an outage): registration retries quietly otherwise.
        deps.logger.warn('node registration failed', { node: name, error: failure.message });
        return { type: 'node.register-failed', error: failure.message, ...retryAfter(failure) };
      },
    });
  }

  async function registerNode(found: NodeFacts | undefined, unavailable: string): Promise<NodeMsg> {
    const existing = await deps.nodeApi.getNode(name);
    if (existing !== undefined && found === undefined) return { type: 'node.registered', node: existing, facts: undefined, created: false };
    if (found === undefined) return { type: 'node.register-failed', error: unavailable };
    if (existing === undefined) {
      try {
        return { type: 'node.registered', node: await deps.nodeApi.createNode(desiredNode(settings, found)), facts: found, created: true };
      } catch (err) {
        const failure = apiFailure(err);
        if (failure?.kind !== 'already-exists') throw err;
        // Created by someone between our get and create: adopt it below, next time round.
        return { type: 'node.register-failed', error: failure.message, ...retryAfter(failure) };
      }
    }
    const patch = labelPatch(settings, found, existing);
    const node = patch ? await deps.nodeApi.patchNodeMetadata(name, patch) : existing;
    return { type: 'node.registered', node, facts: found, created: false };
  }

  function ping(ctx: Ctx): Promise<void> {
    let pingSignal: AbortSignal | undefined;
    const work = (outer: AbortSignal): Promise<void> =>
      callWithDeadline(ctx.clock, config.ping.timeoutMs, outer, (signal) => {
        pingSignal = signal;
        return deps.provider.ping(signal);
      });
    // The ping's own deadline is an answer (the provider is slow or down), as is a classified error.
    const classify: Classifier<string> = (err) =>
      pingSignal?.aborted === true && err === pingSignal.reason
        ? { kind: 'timeout', message: `ping timed out after ${config.ping.timeoutMs} ms`, error: err }
        : providerFailure(err);
    return reportTo(ctx)(work, {
      classify,
      done: () => ({ type: 'node.pinged' }),
      failed: ({ message }) => ({ type: 'node.ping-failed', error: message }),
    });
  }
}

/** The server's Retry-After, for the write loop's backoff (never sooner than it asks). */
function retryAfter(failure: { readonly retryAfterMs?: number | undefined }): { retryAfterMs?: number } {
  return failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {};
}
