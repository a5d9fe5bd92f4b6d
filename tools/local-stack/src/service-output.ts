import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** How `npm start` shows its processes' output: `human` (the default) or `json` (LOG_FORMAT=json, every line as is). */
export type OutputFormat = 'human' | 'json';

const SHOWN_LEVELS = new Set(['warn', 'error', 'fatal']);
/** Fields of a log line that are not worth a terminal line of their own. */
const QUIET_FIELDS = new Set(['level', 'time', 'service', 'msg', 'pid', 'hostname']);

/**
 * What one output line of a service becomes on npm start's terminal: with `json`, the line itself; with `human`, a
 * service's JSON log line only when it is a warning or an error, shortened to its level, message and fields (the whole
 * line is in the service's log file), and any other text (the demo's narration, a crash's stack trace) as it is.
 * Null when the line is not shown.
 */
export function terminalLine(line: string, format: OutputFormat): string | null {
  if (format === 'json' || !line.startsWith('{')) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = typeof entry['level'] === 'string' ? entry['level'] : '';
  if (!SHOWN_LEVELS.has(level)) return null;
  const fields = Object.entries(entry)
    .filter(([name]) => !QUIET_FIELDS.has(name))
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const message = typeof entry['msg'] === 'string' ? entry['msg'] : JSON.stringify(entry['msg'] ?? '');
  return [level.toUpperCase(), message, ...fields].join(' ');
}

/** nats-server's own log format: `[pid] date time [LVL] message`. */
const NATS_SERVER_LINE = /^\[\d+\] \S+ \S+ \[([A-Z]{3})\] (.*)$/;
const NATS_SERVER_SHOWN_LEVELS = new Set(['WRN', 'ERR', 'FTL']);

/** What a line of npm start's nats-server becomes on the terminal: with `human`, its warnings and errors only, without pid and time. */
export function natsServerTerminalLine(line: string, format: OutputFormat): string | null {
  if (format === 'json') return line;
  const match = NATS_SERVER_LINE.exec(line);
  if (match === null) return line;
  const [, level = '', message = ''] = match;
  return NATS_SERVER_SHOWN_LEVELS.has(level) ? `${level} ${message}` : null;
}

export function outputFormatOf(env: Record<string, string | undefined>): OutputFormat {
  return env['LOG_FORMAT'] === 'json' ? 'json' : 'human';
}

/** Where each process's full output goes under `human`: one file per label in `directory`. */
export class ServiceLogFiles {
  constructor(readonly directory: string) {
    mkdirSync(directory, { recursive: true });
  }

  append(label: string, line: string): void {
    appendFileSync(join(this.directory, `${label}.log`), `${line}\n`);
  }
}
