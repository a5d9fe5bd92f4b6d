import { libpqArguments, locatePostgresTools, locateServerPrograms, runCommand } from './postgres-tools';

describe('locateServerPrograms', () => {
  const installed = (files: string[]) => (file: string) => files.includes(file);

  it('takes initdb and postgres from the newest versioned folder that has both, before PATH', () => {
    const found = locateServerPrograms({
      path: '/usr/bin',
      isExecutable: installed(['/usr/bin/initdb', '/usr/bin/postgres', '/usr/lib/postgresql/16/bin/initdb', '/usr/lib/postgresql/15/bin/initdb', '/usr/lib/postgresql/15/bin/postgres']),
      listVersions: () => ['15', '16'],
    });
    expect(found).toEqual({
      initdb: '/usr/lib/postgresql/15/bin/initdb',
      postgres: '/usr/lib/postgresql/15/bin/postgres',
      recvlogical: '/usr/lib/postgresql/15/bin/pg_recvlogical',
    });
  });

  it('falls back to PATH, and says what is missing', () => {
    expect(locateServerPrograms({ path: '/opt/pg/bin', isExecutable: installed(['/opt/pg/bin/initdb', '/opt/pg/bin/postgres']), listVersions: () => [] }).postgres).toBe('/opt/pg/bin/postgres');
    expect(() => locateServerPrograms({ path: '/usr/bin', isExecutable: installed(['/usr/bin/psql']), listVersions: () => [] })).toThrow(/cannot find initdb and postgres/);
  });
});

describe('locatePostgresTools', () => {
  const installed = (files: string[]) => (file: string) => files.includes(file);

  it('prefers PATH', () => {
    const found = locatePostgresTools({
      path: '/opt/bin:/usr/bin',
      isExecutable: installed(['/usr/bin/pgbench', '/usr/bin/psql', '/usr/bin/pg_dump', '/usr/lib/postgresql/16/bin/pgbench']),
      listVersions: () => ['16'],
    });
    expect(found).toEqual({ pgbench: '/usr/bin/pgbench', psql: '/usr/bin/psql', pg_dump: '/usr/bin/pg_dump' });
  });

  it('falls back to the newest /usr/lib/postgresql/<version>/bin (versions compared as numbers)', () => {
    const found = locatePostgresTools({
      path: '/usr/bin',
      isExecutable: installed(['/usr/lib/postgresql/9.6/bin/pgbench', '/usr/lib/postgresql/15/bin/pgbench', '/usr/bin/psql', '/usr/lib/postgresql/15/bin/pg_dump']),
      listVersions: () => ['9.6', '15'],
    });
    expect(found.pgbench).toBe('/usr/lib/postgresql/15/bin/pgbench');
    expect(found.psql).toBe('/usr/bin/psql');
  });

  it('names every missing program', () => {
    expect(() => locatePostgresTools({ path: '/usr/bin', isExecutable: installed(['/usr/bin/psql']), listVersions: () => [] })).toThrow(
      /cannot find pgbench, pg_dump on PATH or under \/usr\/lib\/postgresql\/\*\/bin/,
    );
  });
});

describe('libpqArguments', () => {
  it('splits a URL into -h -p -U, the database, and PGPASSWORD', () => {
    expect(libpqArguments('postgres://bench%20user:p%40ss@db.local:6543/svc_e2e_source_1')).toEqual({
      args: ['-h', 'db.local', '-p', '6543', '-U', 'bench user'],
      database: 'svc_e2e_source_1',
      env: { PGPASSWORD: 'p@ss' },
    });
  });

  it('fills the default port and user', () => {
    expect(libpqArguments('postgres://127.0.0.1/x')).toEqual({ args: ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres'], database: 'x', env: {} });
  });
});

describe('runCommand', () => {
  it('resolves with stdout and stderr, with the extra environment', async () => {
    const result = await runCommand(process.execPath, ['-e', 'process.stdout.write(process.env.BENCH_X); process.stderr.write("e")'], { BENCH_X: 'out' });
    expect(result).toEqual({ stdout: 'out', stderr: 'e' });
  });

  it('rejects with the exit code and the end of stderr', async () => {
    await expect(runCommand(process.execPath, ['-e', 'process.stderr.write("bad things"); process.exit(3)'])).rejects.toThrow(/exited with 3: bad things/);
  });
});
