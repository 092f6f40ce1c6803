/** An EventRecorder that remembers what was recorded. */
import type { EventRecorder, EventSource, EventSubject, EventType } from '../../src/adapters/kubernetes/eventRecorder.js';

export interface RecordedEvent {
  readonly regarding: EventSubject;
  readonly type: EventType;
  readonly reason: string;
  readonly note: string;
  readonly action: string;
  readonly source?: EventSource;
}

export class FakeEvents implements EventRecorder {
  readonly recorded: RecordedEvent[] = [];

  record(regarding: EventSubject, type: EventType, reason: string, note: string, action: string): void {
    this.recorded.push({ regarding, type, reason, note, action, ...(regarding.reporter ? { source: regarding.reporter } : {}) });
  }

  reasons(): string[] {
    return this.recorded.map((e) => e.reason);
  }
}
