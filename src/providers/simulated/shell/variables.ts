/** The shell's variables and which of them are exported (the environment its commands get). */
import { LimitExceeded } from './limits.js';

export class Variables {
  private readonly values: Map<string, string>;
  private readonly exported: Set<string>;

  constructor(private readonly maxLength: number, from?: Variables) {
    this.values = new Map(from?.values);
    this.exported = new Set(from?.exported);
  }

  /** Every variable of `env`, exported. */
  static environment(maxLength: number, env: ReadonlyMap<string, string>): Variables {
    const vars = new Variables(maxLength);
    for (const [k, v] of env) {
      vars.values.set(k, v);
      vars.exported.add(k);
    }
    return vars;
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  set(name: string, value: string): void {
    if (value.length > this.maxLength) throw new LimitExceeded(`${name}: value longer than ${this.maxLength} characters`);
    this.values.set(name, value);
  }

  unset(name: string): void {
    this.values.delete(name);
    this.exported.delete(name);
  }

  export(name: string): void {
    this.exported.add(name);
  }

  /** The exported variables that are set. */
  environment(): Map<string, string> {
    const env = new Map<string, string>();
    for (const name of this.exported) {
      const value = this.values.get(name);
      if (value !== undefined) env.set(name, value);
    }
    return env;
  }
}
