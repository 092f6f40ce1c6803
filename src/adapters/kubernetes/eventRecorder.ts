/**
 * Kubernetes Events (events.k8s.io/v1) about the objects Tether manages. Recording is best
 * effort: `record` never throws and never blocks the caller on the API; failures are logged.
 * Repeats of an identical event (same object, type, reason, action and note) within the
 * aggregation window update one Event's `series.count` instead of creating new Events.
 */
export interface EventRecorder {
  /** `regarding.reporter`: who the Event says recorded it (the kubelet's Events: `kubelet` on the node); Tether by default. */
  record(regarding: EventSubject, type: EventType, reason: string, note: string, action: string): void;
}

/**
 * The component an Event names as its reporter (`reportingController` and `reportingInstance`:
 * events.k8s.io/v1 refuses a `deprecatedSource`; `kubectl describe` shows it under From).
 */
export interface EventSource {
  readonly component: string;
  readonly host: string;
}

export type EventType = 'Normal' | 'Warning';

/** The object an Event is about. `namespace` is undefined for cluster-scoped objects (Nodes). */
export interface EventSubject {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  /** The part of the object, as the kubelet names a container: `spec.containers{app}`. */
  readonly fieldPath?: string;
  /** Who reports the Event about it, when not Tether itself (an Event of the node's kubelet). */
  readonly reporter?: EventSource;
}
