import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const POSTGRES_TOOLS = ['pgbench', 'psql', 'pg_dump'] as const;
export type PostgresTool = (typeof POSTGRES_TOOLS)[number];

/** Versioned install folders of Debian/Ubuntu packages, newest first. */
const VERSIONED_ROOT = '/usr/lib/postgresql';

export interface ToolSearch {
  path: string | undefined;
  /** Folders that may hold `<version>/bin` (Debian layout). */
  versionedRoots?: string[];
  isExecutable?: (file: string) => boolean;
  listVersions?: (root: string) => string[];
}

/**
 * Finds PostgreSQL's client programs: on PATH first, else in the newest /usr/lib/postgresql/<version>/bin
 * that has them all. Throws naming what is missing.
 */
export function locatePostgresTools(search: ToolSearch): Record<PostgresTool, string> {
  const isExecutable = search.isExecutable ?? executable;
  const pathDirs = (search.path ?? '').split(delimiter).filter(Boolean);
  const versionDirs = versionedBinDirs(search);
  const found: Partial<Record<PostgresTool, string>> = {};
  const missing: PostgresTool[] = [];
  for (const tool of POSTGRES_TOOLS) {
    const file = [...pathDirs, ...versionDirs].map((dir) => join(dir, tool)).find(isExecutable);
    if (file) found[tool] = file;
    else missing.push(tool);
  }
  if (missing.length) {
    throw new Error(`cannot find ${missing.join(', ')} on PATH or under ${VERSIONED_ROOT}/*/bin; install the PostgreSQL client programs`);
  }
  return found as Record<PostgresTool, string>;
}

export interface ServerPrograms {
  initdb: string;
  postgres: string;
  /** pg_recvlogical, beside them in the server's bin folder (Debian's postgresql-NN). */
  recvlogical: string;
}

/**
 * PostgreSQL's server programs, initdb and postgres from one folder: the newest /usr/lib/postgresql/<version>/bin
 * that has both (Debian keeps them off PATH), else PATH. Throws when there is none.
 */
export function locateServerPrograms(search: ToolSearch): ServerPrograms {
  const isExecutable = search.isExecutable ?? executable;
  const pathDirs = (search.path ?? '').split(delimiter).filter(Boolean);
  const folder = [...versionedBinDirs(search), ...pathDirs].find((dir) => isExecutable(join(dir, 'initdb')) && isExecutable(join(dir, 'postgres')));
  if (!folder) throw new Error(`cannot find initdb and postgres under ${VERSIONED_ROOT}/*/bin or on PATH; install the PostgreSQL server programs`);
  return { initdb: join(folder, 'initdb'), postgres: join(folder, 'postgres'), recvlogical: join(folder, 'pg_recvlogical') };
}

/** `<root>/<version>/bin` of every versioned install folder, newest version first (compared as numbers). */
function versionedBinDirs(search: ToolSearch): string[] {
  const listVersions = search.listVersions ?? versionsIn;
  return (search.versionedRoots ?? [VERSIONED_ROOT]).flatMap((root) =>
    listVersions(root)
      .sort((a, b) => Number(b) - Number(a) || b.localeCompare(a))
      .map((version) => join(root, version, 'bin')),
  );
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function versionsIn(root: string): string[] {
  try {
    return readdirSync(root).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    return [];
  }
}

/** libpq connection options of a postgres:// URL, as command-line flags and environment. */
export function libpqArguments(url: string): { args: string[]; database: string; env: Record<string, string> } {
  const parsed = new URL(url);
  const args = ['-h', parsed.hostname || '127.0.0.1', '-p', parsed.port || '5432', '-U', decodeURIComponent(parsed.username) || 'postgres'];
  const env: Record<string, string> = parsed.password ? { PGPASSWORD: decodeURIComponent(parsed.password) } : {};
  return { args, database: decodeURIComponent(parsed.pathname.replace(/^\//, '')), env };
}

export interface CommandResult {
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; rejects with its stderr when it fails. */
export function runCommand(file: string, args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const result = { stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      if (code === 0) resolve(result);
      else reject(new Error(`${file.split('/').pop() ?? file} exited with ${code ?? 'a signal'}: ${result.stderr.trim().slice(-2000)}`));
    });
  });
}
