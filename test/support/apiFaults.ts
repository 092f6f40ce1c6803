/** Failures a fake API will throw, per method, in the order they were scripted. */
export class ScriptedFailures<Method extends string> {
  private readonly queued = new Map<Method, Error[]>();

  /** The next call(s) of `method` reject with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.queued.set(method, [...(this.queued.get(method) ?? []), ...errors]);
  }

  /** Throws the next scripted failure of `method`, if any. */
  throwIfScripted(method: Method): void {
    const error = this.queued.get(method)?.shift();
    if (error) throw error;
  }
}
