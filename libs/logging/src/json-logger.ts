import { redact, redactText } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogSink = (line: string) => void;

/**
 * One JSON object per line on stdout. Every field goes through `redact`, so a connection string or a
 * password can never reach the log even when a caller passes one by mistake. Its method names match
 * Nest's LoggerService, so a Nest app can use it as its logger.
 */
export class JsonLogger {
  constructor(
    private readonly service: string,
    private readonly minLevel: LogLevel = 'info',
    private readonly sink: LogSink = (line) => process.stdout.write(line + '\n'),
  ) {}

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
    if (LEVEL_ORDER[level] < LEVEL_ORDER[this.minLevel]) return;
    const fields: Record<string, unknown> = {};
    for (const item of context) {
      if (typeof item === 'string') fields['context'] = item;
      else if (typeof item === 'object' && item !== null && !(item instanceof Error)) Object.assign(fields, item);
      else if (item !== undefined) fields['detail'] = item;
    }
    const text = message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message);
    const entry = { time: new Date().toISOString(), level, service: this.service, msg: redactText(text), ...(redact(fields) as object) };
    this.sink(JSON.stringify(entry));
  }
}
