/** Profiles of an aws-cli style INI file: section name → key → value. */
export type IniProfiles = Map<string, Map<string, string>>;

export class IniSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IniSyntaxError';
  }
}

/**
 * Parses `[name]` (or `[profile name]`) sections of `key = value` lines; `#` and `;` start comment
 * lines. Keys are lower-cased, values trimmed, and a repeated section or key extends or overrides the
 * earlier one. Errors name the line number only: a line may hold a secret.
 */
export function parseIni(text: string): IniProfiles {
  const profiles: IniProfiles = new Map();
  let current: Map<string, string> | undefined;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const section = /^\[\s*(?:profile\s+)?([^\]]*?)\s*\]$/.exec(line);
    if (section) {
      const name = section[1];
      if (name === '') throw new IniSyntaxError(`line ${index + 1}: empty section name`);
      current = profiles.get(name) ?? new Map<string, string>();
      profiles.set(name, current);
      return;
    }
    const equals = line.indexOf('=');
    if (equals <= 0) throw new IniSyntaxError(`line ${index + 1}: expected 'key = value' or '[profile]'`);
    if (current === undefined) throw new IniSyntaxError(`line ${index + 1}: setting outside any [profile] section`);
    current.set(line.slice(0, equals).trim().toLowerCase(), line.slice(equals + 1).trim());
  });
  return profiles;
}
