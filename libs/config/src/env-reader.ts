import { readFileSync } from 'node:fs';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads environment variables into typed values, collecting every problem so a bad boot reports all of
 * them at once. Call `done()` after the last read.
 */
export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: Record<string, string | undefined>) {}

  string(name: string, fallback?: string): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name}: is required`);
      return '';
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  int(name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
    const text = this.raw(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value)) {
      this.problems.push(`${name}: must be an integer, got '${text}'`);
      return fallback;
    }
    if (bounds.min !== undefined && value < bounds.min) this.problems.push(`${name}: must be at least ${bounds.min}`);
    if (bounds.max !== undefined && value > bounds.max) this.problems.push(`${name}: must be at most ${bounds.max}`);
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const text = this.raw(name);
    if (text === undefined) return fallback;
    const lowered = text.toLowerCase();
    if (['true', '1', 'yes'].includes(lowered)) return true;
    if (['false', '0', 'no'].includes(lowered)) return false;
    this.problems.push(`${name}: must be true or false, got '${text}'`);
    return fallback;
  }

  /** A URL whose protocol is one of `protocols`. The value is never echoed: URLs may carry passwords. */
  url(name: string, fallback: string, protocols: string[]): string {
    const value = this.raw(name) ?? fallback;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
        this.problems.push(`${name}: must be a ${protocols.join(' or ')} URL`);
      }
    } catch {
      this.problems.push(`${name}: is not a valid URL`);
    }
    return value;
  }

  /**
   * A comma-separated list of URLs (e.g. the servers of a cluster), each with one of `protocols`; blanks
   * around commas are ignored. Values are never echoed: URLs may carry passwords.
   */
  urlList(name: string, fallback: string, protocols: string[]): string[] {
    const urls = (this.raw(name) ?? fallback)
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== '');
    if (urls.length === 0) this.problems.push(`${name}: is empty`);
    urls.forEach((url, index) => {
      const which = urls.length > 1 ? ` (entry ${index + 1})` : '';
      try {
        const parsed = new URL(url);
        if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
          this.problems.push(`${name}${which}: must be a ${protocols.join(' or ')} URL`);
        }
      } catch {
        this.problems.push(`${name}${which}: is not a valid URL`);
      }
    });
    return urls;
  }

  /** Records a problem found by a rule that spans settings; it must name the setting and never echo a secret value. */
  problem(text: string): void {
    this.problems.push(text);
  }

  /**
   * Two settings that only mean something together, such as a certificate file and its key file: both
   * (returned), or neither (undefined). One alone is a problem naming the missing one; values are not echoed.
   */
  optionalPair(first: string, second: string): [string, string] | undefined {
    const firstValue = this.raw(first);
    const secondValue = this.raw(second);
    if (firstValue !== undefined && secondValue !== undefined) return [firstValue, secondValue];
    if (firstValue !== undefined) this.problems.push(`${second}: is required when ${first} is set`);
    if (secondValue !== undefined) this.problems.push(`${first}: is required when ${second} is set`);
    return undefined;
  }

  /** Throws ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length) throw new ConfigError(this.problems);
  }

  /**
   * The setting's value, or, when `<name>_FILE` names a file instead, that file's content (Kubernetes and compose mount
   * secrets as files, so a secret need not be in the environment): surrounding blanks and the final newline dropped.
   */
  private raw(name: string): string | undefined {
    const value = present(this.env[name]);
    const file = present(this.env[`${name}${FROM_FILE_SUFFIX}`]);
    if (file === undefined) return value;
    if (value !== undefined) {
      this.problems.push(`${name} and ${name}${FROM_FILE_SUFFIX}: set one of them, not both`);
      return value;
    }
    try {
      return present(readFileSync(file, 'utf8'));
    } catch (error) {
      // The path is no secret; the file's content never reaches a message.
      const code = (error as { code?: unknown }).code;
      this.problems.push(`${name}${FROM_FILE_SUFFIX}: cannot read ${file}${typeof code === 'string' ? ` (${code})` : ''}`);
      return undefined;
    }
  }
}

/** `<SETTING>_FILE`: the setting's value is in this file. */
const FROM_FILE_SUFFIX = '_FILE';

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
