/**
 * Runs the pod actor's effects against the provider and the host API, and reports every outcome
 * back as a message. Expected failures become messages; an unclassified provider error (a bug in
 * the provider) is rethrown, which crashes this pod's actor and lets its supervisor restart it.
 */
import type { Clock } from '../../lib/clock.js';
import { describeApiError, retryAfterMsOf } from '../../adapters/kubernetes/errors.js';
import { isKind } from '../../lib/errorKind.js';
import { isSuperseded } from '../../adapters/kubernetes/rateLimiter.js';
import type { EventRecorder } from '../../adapters/kubernetes/eventRecorder.js';
import type { PodApi } from '../../adapters/kubernetes/podApi.js';
import type { Logger } from '../../adapters/logger.js';
import { eventReasonOf, providerKindOf, type ProviderErrorKind as ErrorKind } from '../../providers/errors.js';
import type { PodStatus } from '../../adapters/kubernetes/model.js';
import type { PodProvider } from '../../providers/provider.js';
import { fingerprint } from '../../lib/fingerprint.js';
import type { EffectContext } from '../../runtime/behavior.js';
import { createErrorAnnotation } from './annotations.js';
import { ownedFingerprint } from './podStatusView.js';
import type { PodEffect, PodMsg, PodState } from './protocol.js';
import { errorMessage } from '../../lib/errorMessage.js';

export interface PodEffectDeps {
  readonly provider: PodProvider;
  readonly pods: PodApi;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told how long provider statuses took to reach the host (seconds), for the metric. */
  readonly onStatusLatency?: (seconds: number) => void;
}

type Identity = Pick<PodState, 'namespace' | 'name' | 'uid'>;

/** Provider calls: a classified error is an answer (a message); anything else is a crash. */
async function askProvider<T>(
  call: () => Promise<T>,
  onAnswer: (value: T) => PodMsg | undefined,
  onError: (kind: ErrorKind, message: string, retryAfterMs: number | undefined, error: unknown) => PodMsg,
  ctx: EffectContext<PodMsg>,
): Promise<void> {
  let answer: PodMsg | undefined;
  try {
    answer = onAnswer(await call());
  } catch (error) {
    if (ctx.signal.aborted) return;
    const kind = providerKindOf(error);
    if (kind === undefined) throw error;
    answer = onError(kind, errorMessage(error), retryAfterMsOf(error), error);
  }
  if (answer && !ctx.signal.aborted) ctx.self.tell(answer);
}

/** `logger` is the pod's own (the node's by default). */
export function performPodEffect(deps: PodEffectDeps, pod: Identity, effect: PodEffect, ctx: EffectContext<PodMsg>, logger: Logger = deps.logger): Promise<void> | void {
  const { provider } = deps;
  const { namespace, name } = pod;
  const signal = ctx.signal;
  switch (effect.type) {
    case 'provider.get':
      return askProvider(
        () => provider.getPod(namespace, name, signal),
        (found) => ({ type: 'pod.provider-fetched', pod: found }),
        (_kind, message, retryAfterMs) => ({ type: 'pod.provider-fetch-failed', message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }),
        ctx,
      );
    case 'provider.create':
      return askProvider(
        () => provider.createPod(effect.pod, signal),
        () => ({ type: 'pod.create-succeeded' }),
        (kind, message, _retryAfterMs, error) => {
          const reason = eventReasonOf(error);
          return { type: 'pod.create-failed', kind, message, ...(reason !== undefined ? { reason } : {}) };
        },
        ctx,
      );
    case 'provider.update':
      return askProvider(
        () => provider.updatePod(effect.pod, signal),
        () => undefined, // status changes that follow arrive as notifications
        (_kind, message, retryAfterMs) => ({ type: 'pod.update-failed', message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }),
        ctx,
      );
    case 'provider.delete':
      return askProvider(
        () => provider.deletePod(effect.pod, signal),
        () => ({ type: 'pod.delete-accepted' }),
        (kind, message) => ({ type: 'pod.delete-failed', kind, message }),
        ctx,
      );
    case 'host.write-status':
      return writeStatus(deps, pod, effect.status, ctx, logger);
    case 'host.annotate':
      return annotate(deps, pod, effect.annotations, ctx);
    case 'host.event':
      deps.events.record(
        { kind: 'Pod', apiVersion: 'v1', namespace, name, uid: pod.uid },
        effect.eventType,
        effect.reason,
        effect.note,
        effect.action,
      );
      return;
    case 'host.delete':
      return deleteHostPod(deps, pod, ctx);
    case 'schedule':
      ctx.schedule(effect.ms, effect.msg);
      return;
    case 'observe-status-latency':
      deps.onStatusLatency?.(effect.ms / 1000);
      return;
  }
}

async function writeStatus(deps: PodEffectDeps, pod: Identity, status: PodStatus, ctx: EffectContext<PodMsg>, logger: Logger): Promise<void> {
  try {
    const stored = await deps.pods.patchPodStatus(pod.namespace, pod.name, pod.uid, status);
    ctx.self.tell({
      type: 'pod.status-written',
      written: fingerprint(status),
      stored: ownedFingerprint(stored.status),
      ...(stored.metadata?.resourceVersion ? { storedVersion: stored.metadata.resourceVersion } : {}),
    });
  } catch (error) {
    if (isSuperseded(error)) {
      ctx.self.tell({ type: 'pod.status-write-superseded' });
      return;
    }
    // 404, or 409 on the uid carried in the patch: another pod holds the name now. Ours is gone.
    const podGone = isKind(error, 'not-found', 'conflict');
    if (!podGone) logger.warn('pod status write failed', { pod: `${pod.namespace}/${pod.name}`, error: describeApiError(error) });
    ctx.self.tell({ type: 'pod.status-write-failed', message: describeApiError(error), podGone });
  }
}

async function annotate(deps: PodEffectDeps, pod: Identity, annotations: Readonly<Record<string, string | null>>, ctx: EffectContext<PodMsg>): Promise<void> {
  const value = annotations[createErrorAnnotation] ?? null;
  try {
    await deps.pods.patchPodAnnotations(pod.namespace, pod.name, pod.uid, annotations);
    ctx.self.tell({ type: 'pod.annotation-written', value });
  } catch (error) {
    if (isKind(error, 'not-found', 'conflict')) return; // the pod is gone (a conflict: on its uid); nothing to annotate
    const retryAfterMs = retryAfterMsOf(error);
    ctx.self.tell({ type: 'pod.annotation-failed', message: describeApiError(error), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }
}

async function deleteHostPod(deps: PodEffectDeps, pod: Identity, ctx: EffectContext<PodMsg>): Promise<void> {
  try {
    // Grace 0: the provider has already ended the pod; the UID precondition spares a re-created namesake.
    await deps.pods.deletePod(pod.namespace, pod.name, { uid: pod.uid, gracePeriodSeconds: 0 });
    ctx.self.tell({ type: 'pod.host-delete-finished' });
  } catch (error) {
    if (isKind(error, 'not-found', 'conflict')) {
      ctx.self.tell({ type: 'pod.host-delete-finished' });
      return;
    }
    ctx.self.tell({ type: 'pod.host-delete-failed', message: describeApiError(error) });
  }
}
