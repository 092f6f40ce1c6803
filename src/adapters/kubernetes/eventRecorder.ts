/**
 * Kubernetes Events (events.k8s.io/v1) about the objects Tether manages. Recording is best
 * effort: `record` never throws and never blocks the caller on the API; failures are logged.
 * Repeats of an identical event (same object, type, reason, action and note) within the
 * aggregation window update one Event's `series.count` instead of creating new Events.
 */
export interface EventRecorder {
  record(regarding: EventSubject, type: EventType, reason: string, note: string, action: string): void;
}

export type EventType = 'Normal' | 'Warning';

/** The object an Event is about. `namespace` is undefined for cluster-scoped objects (Nodes). */
export interface EventSubject {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
}
