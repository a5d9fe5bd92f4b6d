import { pino, type DestinationStream, type Logger } from 'pino';
import { redact } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Receives each log line, without its trailing newline (tests collect lines with one). */
export type LogSink = (line: string) => void;

function sinkDestination(sink: LogSink): DestinationStream {
  return { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) };
}

/**
 * One JSON object per line on stdout, written by pino: `level` as a word, `time` as an ISO string,
 * `service`, `msg`, then the caller's fields. Its method names match Nest's LoggerService, so a Nest app
 * can use it as its logger.
 *
 * Every line goes through `redact` (pino's `formatters.log`), so a connection string or a password never
 * reaches the log even when a caller passes one by mistake. pino's own `redact` option is not enough for
 * that: its paths name fixed positions, while a secret may sit at any depth, in an array, in an Error or
 * in free text.
 */
export class JsonLogger {
  private readonly pino: Logger;

  constructor(service: string, minLevel: LogLevel = 'info', sink?: LogSink) {
    this.pino = pino(
      {
        level: minLevel,
        base: { service },
        timestamp: pino.stdTimeFunctions.isoTime,
        // `redact` already made every Error { name, message }; pino's own `err` serializer would reshape it.
        serializers: { err: (value: unknown) => value },
        formatters: { level: (label) => ({ level: label }), log: (fields) => redact(fields) as Record<string, unknown> },
      },
      sink ? sinkDestination(sink) : pino.destination({ dest: 1, sync: true }),
    );
  }

  debug(message: unknown, ...context: unknown[]): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, ...context: unknown[]): void {
    this.write('debug', message, context);
  }

  log(message: unknown, ...context: unknown[]): void {
    this.write('info', message, context);
  }

  info(message: string, fields: Record<string, unknown> = {}): void {
    this.write('info', message, [fields]);
  }

  warn(message: unknown, ...context: unknown[]): void {
    this.write('warn', message, context);
  }

  error(message: unknown, ...context: unknown[]): void {
    this.write('error', message, context);
  }

  private write(level: LogLevel, message: unknown, context: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // `msg` travels with the fields (not as pino's message argument) so that it is redacted with them
    // and written before them, as the lines always were.
    this.pino[level]({ msg: messageText(message), ...contextFields(context) });
  }
}

function messageText(message: unknown): string {
  if (message instanceof Error) return message.message;
  if (typeof message === 'string') return message;
  return JSON.stringify(redact(message)) ?? String(message);
}

/** Nest passes a context name (and for errors a stack) as strings; our own callers pass one object of fields. */
function contextFields(context: unknown[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const item of context) {
    if (typeof item === 'string') fields['context'] = item;
    else if (typeof item === 'object' && item !== null && !(item instanceof Error)) Object.assign(fields, item);
    else if (item !== undefined) fields['detail'] = item;
  }
  return fields;
}
