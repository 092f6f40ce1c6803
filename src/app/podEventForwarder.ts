/**
 * Events a provider reports about a node's pods, forwarded to that node's host EventRecorder.
 * Providers are built before the agent that owns the recorders (the agent needs them running),
 * so the forwarder is handed to the provider first and bound to the recorder once the agent has
 * started; an Event reported before that (there is none in practice: pods appear after the agent
 * starts) is dropped rather than queued without bound.
 */
import type { EventRecorder, EventType } from '../adapters/kubernetes/eventRecorder.js';
import { definedOnly } from '../lib/defaults.js';

export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
}

export class PodEventForwarder {
  private recorder: EventRecorder | undefined;

  bind(recorder: EventRecorder | undefined): void {
    this.recorder = recorder;
  }

  /** The callback shape providers take (the Kubernetes provider's `onRemoteEvent`). */
  readonly record = (pod: PodRef, type: EventType, reason: string, note: string): void => {
    this.recorder?.record(
      { kind: 'Pod', apiVersion: 'v1', namespace: pod.namespace, name: pod.name, ...definedOnly({ uid: pod.uid }) },
      type, reason, note, 'Offload',
    );
  };
}
