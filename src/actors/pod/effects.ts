/**
 * Runs the pod actor's effects against the provider and the host API, and reports every outcome
 * back as a message (runtime/effectOutcome.ts). Expected failures become messages; an unclassified
 * error (a bug in the provider, or anything from the host API that is not an API failure) crashes
 * this pod's actor and lets its supervisor restart it (the classifiers: actors/effectFailures.ts, runtime/apiFailures.ts).
 */
import type { Clock } from '../../lib/clock.js';
import type { EventRecorder } from '../../adapters/kubernetes/eventRecorder.js';
import type { PodApi } from '../../adapters/kubernetes/podApi.js';
import type { Logger } from '../../adapters/logger.js';
import { eventReasonOf } from '../../providers/errors.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { Verdict } from '../admission/admit.js';
import { isLifecycleHookProvider, type PodProvider } from '../../providers/provider.js';
import { fingerprintOf } from '../../lib/fingerprint.js';
import type { PodIdentity } from '../../lib/podIdentity.js';
import type { EffectContext } from '../../runtime/behavior.js';
import { performWithSchedule, reportTo, type Failure, type OwnEffect } from '../../runtime/effectOutcome.js';
import { apiFailure, queuedWriteFailure } from '../../runtime/apiFailures.js';
import { providerFailure } from '../effectFailures.js';
import { createErrorAnnotation } from './annotations.js';
import { ownedFingerprint } from './podStatusView.js';
import type { PodEffect, PodMsg } from './protocol.js';
import { definedOnly } from '../../lib/defaults.js';

/** The node's admission (src/actors/admission/admittedPods.ts), one per node. */
export interface PodAdmission {
  /** Undefined while the node's Node is not known yet. */
  admit(pod: Pod): Verdict | undefined;
  recordRunning(pod: Pod): void;
}

export interface PodEffectDeps {
  readonly provider: PodProvider;
  readonly admission: PodAdmission;
  readonly pods: PodApi;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told how long provider statuses took to reach the host (seconds), for the metric. */
  readonly onStatusLatency?: (seconds: number) => void;
}

const retryAfter = (failure: Failure): { retryAfterMs?: number } => (failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {});

/** `logger` is the pod's own (the node's by default). */
export function performPodEffect(deps: PodEffectDeps, pod: PodIdentity, effect: PodEffect, ctx: EffectContext<PodMsg>, logger: Logger = deps.logger): Promise<void> | void {
  return performWithSchedule(effect, ctx, (own) => performOwn(deps, pod, own, ctx, logger));
}

function performOwn(deps: PodEffectDeps, pod: PodIdentity, effect: OwnEffect<PodEffect, PodMsg>, ctx: EffectContext<PodMsg>, logger: Logger): Promise<void> | void {
  const { provider } = deps;
  const { namespace, name, uid } = pod;
  switch (effect.type) {
    case 'provider.get':
      return reportTo(ctx)((signal) => provider.getPod(namespace, name, signal), {
        classify: providerFailure,
        done: (found) => ({ type: 'pod.provider-fetched', pod: found }),
        failed: (failure) => ({ type: 'pod.provider-fetch-failed', message: failure.message, ...retryAfter(failure) }),
      });
    case 'node.admit': {
      const verdict = deps.admission.admit(effect.pod);
      if (!verdict) ctx.self.tell({ type: 'pod.admission-deferred' });
      else ctx.self.tell(verdict.admit ? { type: 'pod.admitted' } : { type: 'pod.admission-rejected', reason: verdict.reason, message: verdict.message, ...definedOnly({ ownerWarning: verdict.ownerWarning }) });
      return;
    }
    case 'node.admitted-as-running':
      deps.admission.recordRunning(effect.pod);
      return;
    case 'provider.create':
      return reportTo(ctx)((signal) => provider.createPod(effect.pod, signal), {
        classify: providerFailure,
        done: () => ({ type: 'pod.create-succeeded' }),
        failed: ({ kind, message, error }) => {
          const reason = eventReasonOf(error);
          return { type: 'pod.create-failed', kind, message, ...definedOnly({ reason }) };
        },
      }, { deadlineMs: effect.deadlineMs });
    case 'provider.update':
      return reportTo(ctx)((signal) => provider.updatePod(effect.pod, signal), {
        classify: providerFailure,
        done: () => undefined, // status changes that follow arrive as notifications
        failed: (failure) => ({ type: 'pod.update-failed', message: failure.message, ...retryAfter(failure) }),
      });
    case 'provider.delete':
      return reportTo(ctx)((signal) => provider.deletePod(effect.pod, signal), {
        classify: providerFailure,
        done: () => ({ type: 'pod.delete-accepted' }),
        failed: ({ kind, message }) => ({ type: 'pod.delete-failed', kind, message }),
      });
    case 'provider.run-hook': {
      const { hook, container } = effect;
      const run = definedOnly({ run: effect.run });
      if (!isLifecycleHookProvider(provider)) return; // never asked of one (containerDuties.hooks)
      return reportTo(ctx)((signal) => provider.runLifecycleHook(namespace, name, container, hook, signal), {
        classify: providerFailure,
        done: () => ({ type: 'pod.hook-finished', container, hook, ...run }),
        failed: ({ message }) => ({ type: 'pod.hook-finished', container, hook, error: message, ...run }),
      });
    }
    case 'provider.kill-container': {
      const { container, graceSeconds } = effect;
      if (!isLifecycleHookProvider(provider)) return; // never asked of one (containerDuties.hooks)
      // The container's next status says how it ended; a failed kill is logged (the kubelet's is too).
      return reportTo(ctx)((signal) => provider.killContainer(namespace, name, container, graceSeconds, signal), {
        classify: providerFailure,
        done: () => undefined,
        failed: ({ message }) => {
          logger.warn('killing a container after its failed postStart hook failed', { pod: `${namespace}/${name}`, container, error: message });
          return undefined;
        },
      });
    }
    case 'provider.poststart-done': {
      const { container, containerID } = effect;
      const attempt = effect.attempt ?? 0;
      if (!isLifecycleHookProvider(provider)) return; // never asked of one (containerDuties.hooks)
      // What follows the sidecar waits for this call: a failed one is made again (postStartDone.ts).
      return reportTo(ctx)((signal) => provider.postStartDone(namespace, name, container, containerID, signal), {
        classify: providerFailure,
        done: () => undefined,
        failed: ({ message }) => {
          logger.warn('telling the provider a sidecar\'s postStart hook is over failed; it is told again', { pod: `${namespace}/${name}`, container, attempt, error: message });
          return { type: 'pod.poststart-done-failed', container, containerID, attempt };
        },
      });
    }
    case 'host.write-status':
      return writeStatus(deps, pod, effect.status, ctx, logger);
    case 'host.annotate': {
      const value = effect.annotations[createErrorAnnotation] ?? null;
      return reportTo(ctx)(() => deps.pods.patchPodAnnotations(namespace, name, uid, effect.annotations), {
        classify: apiFailure,
        done: () => ({ type: 'pod.annotation-written', value }),
        // The pod is gone (a conflict: on its uid): nothing to annotate, nothing to retry.
        failed: (failure) => (ourPodGone(failure) ? undefined : { type: 'pod.annotation-failed', message: failure.message, ...retryAfter(failure) }),
      });
    }
    case 'host.event':
      deps.events.record(
        { kind: 'Pod', apiVersion: 'v1', namespace, name, uid, ...definedOnly({ fieldPath: effect.fieldPath, reporter: effect.source }) },
        effect.eventType, effect.reason, effect.note, effect.action,
      );
      return;
    case 'host.owner-event': {
      const { kind, apiVersion, namespace: ownerNamespace, name: ownerName, uid: ownerUid, reason, note } = effect.warning;
      deps.events.record({ kind, apiVersion, namespace: ownerNamespace, name: ownerName, uid: ownerUid }, 'Warning', reason, note, 'Admit');
      return;
    }
    case 'host.delete':
      // Grace 0: the provider has already ended the pod; the UID precondition spares a re-created namesake.
      return reportTo(ctx)(() => deps.pods.deletePod(namespace, name, { uid, gracePeriodSeconds: 0 }), {
        classify: apiFailure,
        done: () => ({ type: 'pod.host-delete-finished' }),
        failed: (failure) => (ourPodGone(failure) ? { type: 'pod.host-delete-finished' } : { type: 'pod.host-delete-failed', message: failure.message }),
      });
    case 'observe-status-latency':
      deps.onStatusLatency?.(effect.ms / 1000);
      return;
  }
}

/** 404, or 409 on the uid every write carries: another pod holds the name now. Ours is gone. */
const ourPodGone = (failure: Failure<string>): boolean => failure.kind === 'not-found' || failure.kind === 'conflict';

function writeStatus(deps: PodEffectDeps, pod: PodIdentity, status: PodStatus, ctx: EffectContext<PodMsg>, logger: Logger): Promise<void> {
  return reportTo(ctx)(() => deps.pods.patchPodStatus(pod.namespace, pod.name, pod.uid, status), {
    classify: queuedWriteFailure,
    done: (stored) => ({
      type: 'pod.status-written',
      written: fingerprintOf(status),
      stored: ownedFingerprint(stored.status),
      ...definedOnly({ storedVersion: stored.metadata?.resourceVersion || undefined }),
    }),
    failed: (failure) => {
      if (failure.kind === 'superseded') return { type: 'pod.status-write-superseded' };
      const podGone = ourPodGone(failure);
      if (!podGone) logger.warn('pod status write failed', { pod: `${pod.namespace}/${pod.name}`, error: failure.message });
      return { type: 'pod.status-write-failed', message: failure.message, podGone };
    },
  });
}
