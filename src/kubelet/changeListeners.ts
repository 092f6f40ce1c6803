/**
 * Who hears of a value that changes while a server runs (a certificate, a CA bundle): each
 * listener in turn; one that throws is logged and the others still hear.
 */
import type { Logger } from '../adapters/logger.js';
import { errorMessage } from '../lib/errorMessage.js';

export class ChangeListeners<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly what: string, private readonly logger?: Logger) {}

  /** Returns what stops `listener` hearing. */
  add(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        this.logger?.error(`a listener of ${this.what} failed`, { error: errorMessage(error) });
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
