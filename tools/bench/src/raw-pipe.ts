import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { libpqArguments } from './postgres-tools';

export interface Command {
  file: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * `a | b` without a shell: b's stdin is a's stdout (a kernel pipe, no copy through this process).
 * Resolves with b's stdout once both ended well.
 */
export function pipeCommands(a: Command, b: Command): Promise<string> {
  const first = spawn(a.file, a.args, { env: { ...process.env, ...a.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const second = spawn(b.file, b.args, { env: { ...process.env, ...b.env }, stdio: [first.stdout, 'pipe', 'pipe'] });
  // b holds its own copy of the pipe's read end; ours would only compete for the data.
  first.stdout.destroy();
  return Promise.all([finished(first, a.file), outputOf(second, b.file)]).then(([, output]) => output);
}

/**
 * `a | tee fifo | b` with c reading the fifo: one read of a written to both b and c at once, through kernel pipes (no
 * copy through this process). A fifo, since a child's stdin from spawn is a socket, which tee cannot open as /dev/fd/N.
 * Resolves with b's and c's stdout once all four ended well.
 */
export async function teeCommands(a: Command, b: Command, c: Command): Promise<[string, string]> {
  const folder = mkdtempSync(join(tmpdir(), 'svc-bench-tee-'));
  const fifo = join(folder, 'copy');
  try {
    execFileSync('mkfifo', [fifo]);
    const second = spawn(b.file, b.args, { env: { ...process.env, ...b.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    // The shell opens the fifo (blocking until tee opens it to write) and becomes c.
    const third = spawn('sh', ['-c', 'exec "$0" "$@" < "$SVC_BENCH_FIFO"', c.file, ...c.args], { env: { ...process.env, ...c.env, SVC_BENCH_FIFO: fifo }, stdio: ['ignore', 'pipe', 'pipe'] });
    const first = spawn(a.file, a.args, { env: { ...process.env, ...a.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const splitter = spawn('tee', [fifo], { stdio: [first.stdout, second.stdin, 'pipe'] });
    // The children hold their own copies of these ends; ours would keep a reader from EOF or compete for the data.
    first.stdout.destroy();
    second.stdin.destroy();
    const [, , fromB, fromC] = await Promise.all([finished(first, a.file), finished(splitter, 'tee'), outputOf(second, b.file), outputOf(third, c.file)]);
    return [fromB, fromC];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function outputOf(child: ChildProcess, file: string): Promise<string> {
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  return finished(child, file).then(() => Buffer.concat(output).toString('utf8'));
}

function finished(child: ChildProcess, file: string): Promise<void> {
  const errors: Buffer[] = [];
  child.stderr?.on('data', (chunk: Buffer) => errors.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${file.split('/').pop() ?? file} exited with ${code ?? 'a signal'}: ${Buffer.concat(errors).toString('utf8').trim().slice(-2000)}`));
    });
  });
}

/** psql for one statement against a database URL: no psqlrc, stop at the first error. */
export function psqlCommand(psql: string, url: string, command: string): Command {
  const { args, database, env } = libpqArguments(url);
  return { file: psql, args: [...args, '-X', '-v', 'ON_ERROR_STOP=1', '-c', command, '-d', database], env };
}

/** Empty copies of the source's tables (columns, keys, indexes) in `targetUrl`: pg_dump --schema-only | psql. */
export async function copySchema(tools: { psql: string; pg_dump: string }, sourceUrl: string, targetUrl: string, tables: string[]): Promise<void> {
  const source = libpqArguments(sourceUrl);
  const target = libpqArguments(targetUrl);
  await pipeCommands(
    { file: tools.pg_dump, args: [...source.args, '--schema-only', '--no-owner', '--no-privileges', ...tables.flatMap((table) => ['-t', table]), source.database], env: source.env },
    { file: tools.psql, args: [...target.args, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', target.database], env: target.env },
  );
}

/**
 * The design's floor: one read of the table written into two databases at once, `psql \copy … to stdout | tee` into a
 * `psql \copy … from stdin` for each target. Resolves with the rows each target took.
 */
export async function copyTableTwice(psql: string, sourceUrl: string, targetUrls: [string, string], table: string): Promise<[number, number]> {
  const [first, second] = await teeCommands(
    psqlCommand(psql, sourceUrl, `\\copy ${table} to stdout`),
    psqlCommand(psql, targetUrls[0], `\\copy ${table} from stdin`),
    psqlCommand(psql, targetUrls[1], `\\copy ${table} from stdin`),
  );
  return [copiedRows(first), copiedRows(second)];
}

function copiedRows(psqlOutput: string): number {
  const match = /COPY (\d+)/.exec(psqlOutput);
  return match ? Number(match[1]) : Number.NaN;
}

/** `psql -c "\copy t to stdout" <source> | psql -c "\copy t from stdin" <target>`; resolves with the rows copied. */
export async function copyTable(psql: string, sourceUrl: string, targetUrl: string, table: string): Promise<number> {
  return copiedRows(await pipeCommands(psqlCommand(psql, sourceUrl, `\\copy ${table} to stdout`), psqlCommand(psql, targetUrl, `\\copy ${table} from stdin`)));
}
