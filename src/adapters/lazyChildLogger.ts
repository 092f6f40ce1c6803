import type { LogFields, Logger } from './logger.js';

/**
 * A child logger made on first use. Each pod actor has one; most never log (an idle pod says
 * nothing), and an eager child costs ~0.6 KiB per pod (its closures, bindings and path strings:
 * 6 MiB at 10k pods). A class, so its methods live on the prototype rather than in closures.
 */
export class LazyChildLogger implements Logger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: () => LogFields,
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.logger().debug(msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.logger().info(msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.logger().warn(msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.logger().error(msg, fields);
  }

  child(bindings: LogFields): Logger {
    return this.logger().child(bindings);
  }

  private logger(): Logger {
    return (this.made ??= this.parent.child(this.bindings()));
  }
}
