import { Client } from 'pg';

export interface HeldStatement {
  /** Resolves once a session sent the statement, which the server has not received yet. */
  readonly reached: Promise<void>;
  /** Sends the held statement on. */
  release(): void;
  /** Sends it on if still held, and lets every later statement through. */
  restore(): void;
}

/**
 * Holds the first statement any pg session of this process sends (promise form) that `matches`, until `release`: a
 * session delayed between two of its statements, as a slow network path delays one. Only one hold at a time.
 */
export function holdStatement(matches: (text: string, values: readonly unknown[]) => boolean): HeldStatement {
  const prototype = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  let armed = true;
  let reach = (): void => undefined;
  let release = (): void => undefined;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  prototype.query = function (this: Client, ...args: unknown[]): unknown {
    const [query, values] = args;
    const text = typeof query === 'string' ? query : (query as { text?: unknown } | null)?.text;
    const parameters = Array.isArray(values) ? values : [];
    if (armed && typeof text === 'string' && !args.some((arg) => typeof arg === 'function') && matches(text, parameters)) {
      armed = false;
      reach();
      return released.then(() => original.apply(this, args));
    }
    return original.apply(this, args);
  };
  return {
    reached,
    release,
    restore: () => {
      prototype.query = original;
      release();
    },
  };
}
