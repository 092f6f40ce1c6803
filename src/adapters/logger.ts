/**
 * Structured logs: one JSON object per line with a level, a message and the bindings of whoever
 * logs (actor path, node, pod). A small interface so tests can capture lines and production can
 * swap the sink.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(bindings: LogFields): Logger;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export function jsonLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  bindings: LogFields = {},
): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void => {
    if (rank[at] < rank[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...bindings, ...fields }, errorReplacer));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (more) => jsonLogger(level, write, { ...bindings, ...more }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { message: value.message, name: value.name } : value;
}

export const silentLogger: Logger = jsonLogger('silent');
