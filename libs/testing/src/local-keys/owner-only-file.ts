import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A JSON file of strings that `npm start` makes once per installation and keeps readable by its owner only. */
export interface OwnerOnlyFileKind<Field extends string> {
  /** What the file holds, as its errors say it: "the embedded S3 server's credentials". */
  holds: string;
  /** What `npm start` writes instead when the file is deleted, and what that costs. */
  renewed: string;
  fields: readonly Field[];
}

/**
 * `generated`, written to `path` (mode 0600, its folder 0700 when made here), or what the file already holds: one
 * value per installation, the same on every start.
 */
export function loadOrCreateOwnerOnlyFile<Field extends string>(path: string, kind: OwnerOnlyFileKind<Field>, generated: Record<Field, string>): Record<Field, string> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // 'wx': never replaces a file another start wrote meanwhile.
    writeFileSync(path, `${JSON.stringify(generated, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    return generated;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readOwnerOnlyFile(path, kind);
  }
}

/** What `npm start` wrote to `path`; errors name the file and what is wrong, never a value. */
export function readOwnerOnlyFile<Field extends string>(path: string, kind: OwnerOnlyFileKind<Field>): Record<Field, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${path} does not exist: \`npm start\` writes ${kind.holds} there on its first run`);
    }
    throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) {
    throw new Error(`${path} can be read by other users; make it yours alone (chmod 600 ${path}) and start again`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON; delete it to have \`npm start\` write ${kind.renewed}`);
  }
  const values: Partial<Record<Field, string>> = {};
  for (const name of kind.fields) {
    const value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[name] : undefined;
    if (typeof value !== 'string' || value === '') {
      throw new Error(`${path} must hold a JSON object with non-empty strings ${kind.fields.join(' and ')}`);
    }
    values[name] = value;
  }
  return values as Record<Field, string>;
}
