/**
 * The production Logger: pino, one JSON object per line on stderr (or a given destination), with
 * `time` in ISO 8601, `level` as a word, `msg`, and the bindings of whoever logs (actor `path`,
 * `node`, `pod`) on every line. Errors in fields are reduced to name and message, as jsonLogger
 * does. Level from the option or `TETHER_LOG_LEVEL`, default info.
 */
import { pino, stdTimeFunctions, type DestinationStream, type Logger as Pino } from 'pino';
import type { LogFields, Logger, LogLevel } from './logger.js';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  const level = value?.trim().toLowerCase();
  return LEVELS.find((l) => l === level) ?? fallback;
}

function plainFields(fields: LogFields | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields ?? {})) out[key] = value instanceof Error ? { name: value.name, message: value.message } : value;
  return out;
}

function wrap(log: Pino): Logger {
  return {
    debug: (msg, fields) => log.debug(plainFields(fields), msg),
    info: (msg, fields) => log.info(plainFields(fields), msg),
    warn: (msg, fields) => log.warn(plainFields(fields), msg),
    error: (msg, fields) => log.error(plainFields(fields), msg),
    child: (bindings) => wrap(log.child(plainFields(bindings))),
  };
}

export function pinoLogger(options: { readonly level?: LogLevel; readonly destination?: DestinationStream; readonly name?: string } = {}): Logger {
  const level = options.level ?? parseLogLevel(process.env['TETHER_LOG_LEVEL']);
  const log = pino({
    level,
    base: options.name ? { name: options.name } : null,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  }, options.destination ?? pino.destination({ dest: 2, sync: false }));
  return wrap(log);
}
