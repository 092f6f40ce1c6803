/**
 * Events a provider reports about a node's pods, forwarded to that node's host EventRecorder.
 * Providers are built before the agent that owns the recorders (the agent needs them running),
 * so the forwarder is handed to the provider first and bound to the recorder once the agent has
 * started; an Event reported before that (there is none in practice: pods appear after the agent
 * starts) is dropped rather than queued without bound.
 */
import type { EventRecorder, EventType } from '../adapters/kubernetes/eventRecorder.js';
import { definedOnly } from '../lib/defaults.js';
import type { NamedPod } from '../lib/podIdentity.js';
import type { ContainerEventRef } from '../providers/registration.js';


export class PodEventForwarder {
  private recorder: EventRecorder | undefined;

  /** `nodeName`: the node whose kubelet a container's Event is reported from. */
  constructor(private readonly nodeName?: string) {}

  bind(recorder: EventRecorder | undefined): void {
    this.recorder = recorder;
  }

  /**
   * The callback shape providers take (`PodEventSink`: the Kubernetes provider's `onRemoteEvent`,
   * the simulated node's probe Events). A container's Event is the kubelet's on the node, with
   * its fieldPath and action; any other is the provider's, action `Offload`.
   */
  readonly record = (pod: NamedPod, type: EventType, reason: string, note: string, container?: ContainerEventRef): void => {
    const regarding = { kind: 'Pod', apiVersion: 'v1', namespace: pod.namespace, name: pod.name, ...definedOnly({ uid: pod.uid }) };
    if (container === undefined) {
      this.recorder?.record(regarding, type, reason, note, 'Offload');
      return;
    }
    const reporter = this.nodeName === undefined ? undefined : { component: 'kubelet', host: this.nodeName };
    this.recorder?.record({ ...regarding, fieldPath: container.fieldPath, ...definedOnly({ reporter }) }, type, reason, note, container.action);
  };
}
