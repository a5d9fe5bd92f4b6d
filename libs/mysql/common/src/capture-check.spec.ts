import type { Connection } from 'mysql2/promise';
import { captureSettings, privilegeProblems, reconcileRetention, settingProblems, type CaptureSettings } from './capture-check';

/** A connection whose every query answers `answer` (rows, or a rejection), recording the statements run. */
function fakeConnection(answer: (sql: string) => unknown[] | Error): { connection: Connection; statements: string[] } {
  const statements: string[] = [];
  const query = async (sql: string) => {
    statements.push(sql);
    const result = answer(sql);
    if (result instanceof Error) throw result;
    return [result, []];
  };
  return { connection: { query } as unknown as Connection, statements };
}

const READY: CaptureSettings['values'] = { log_bin: 'ON', binlog_format: 'ROW', binlog_row_image: 'FULL' };
const settings = (values: CaptureSettings['values'], expireSeconds = 0): CaptureSettings => ({ values, expireSeconds });

describe('settingProblems: why the binary log cannot be followed as the server is set', () => {
  it('finds nothing wrong with ROW events of FULL images', () => {
    expect(settingProblems(settings(READY))).toEqual([]);
    expect(settingProblems(settings({ log_bin: 'on', binlog_format: 'row', binlog_row_image: 'full' }))).toEqual([]);
    expect(settingProblems(settings({ ...READY, binlog_row_value_options: '', binlog_transaction_compression: 'OFF', log_bin_compress: 'OFF' }))).toEqual([]);
  });

  it('stops at binary logging off, with how to turn it on', () => {
    const problems = settingProblems(settings({ log_bin: 'OFF', binlog_format: 'MIXED' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/log_bin is OFF/);
    expect(problems[0]).toMatch(/--log-bin/);
    expect(problems[0]).toMatch(/binlog_format=ROW/);
    expect(settingProblems(settings({}))).toHaveLength(1);
  });

  it.each<[string, CaptureSettings['values'], RegExp[]]>([
    ['binlog_format MIXED', { ...READY, binlog_format: 'MIXED' }, [/binlog_format is MIXED/, /SET GLOBAL binlog_format = 'ROW'/, /configuration file/]],
    ['binlog_format STATEMENT', { ...READY, binlog_format: 'STATEMENT' }, [/binlog_format is STATEMENT/, /SET GLOBAL binlog_format = 'ROW'/]],
    ['binlog_row_image MINIMAL', { ...READY, binlog_row_image: 'MINIMAL' }, [/binlog_row_image is MINIMAL/, /SET GLOBAL binlog_row_image = 'FULL'/]],
    ['binlog_row_image NOBLOB', { ...READY, binlog_row_image: 'NOBLOB' }, [/binlog_row_image is NOBLOB/, /'FULL'/]],
    ['binlog_row_value_options PARTIAL_JSON (MySQL)', { ...READY, binlog_row_value_options: 'PARTIAL_JSON' }, [/binlog_row_value_options is PARTIAL_JSON/, /SET GLOBAL binlog_row_value_options = ''/]],
    ['binlog_transaction_compression ON (MySQL)', { ...READY, binlog_transaction_compression: 'ON' }, [/binlog_transaction_compression is ON/, /SET GLOBAL binlog_transaction_compression = OFF/]],
    ['log_bin_compress ON (MariaDB)', { ...READY, log_bin_compress: 'ON' }, [/log_bin_compress is ON/, /SET GLOBAL log_bin_compress = OFF/]],
  ])('%s: names the setting and its fix', (_case, values, expected) => {
    const problems = settingProblems(settings(values));
    expect(problems).toHaveLength(1);
    for (const pattern of expected) expect(problems[0]).toMatch(pattern);
  });

  it('reads a server without binlog_row_image (before MySQL 5.6) as writing full images', () => {
    expect(settingProblems(settings({ log_bin: 'ON', binlog_format: 'ROW' }))).toEqual([]);
  });

  it('lists every problem at once', () => {
    expect(settingProblems(settings({ log_bin: 'ON', binlog_format: 'MIXED', binlog_row_image: 'MINIMAL', log_bin_compress: 'ON' }))).toHaveLength(3);
  });
});

describe('captureSettings: the settings as SHOW GLOBAL VARIABLES reports them', () => {
  it('keeps each value and takes the expiry from binlog_expire_logs_seconds', async () => {
    const { connection, statements } = fakeConnection(() => [
      { Variable_name: 'log_bin', Value: 'ON' },
      { Variable_name: 'binlog_expire_logs_seconds', Value: '86400' },
      { Variable_name: 'expire_logs_days', Value: '3' },
    ]);
    expect(await captureSettings(connection)).toEqual({ values: { log_bin: 'ON', binlog_expire_logs_seconds: '86400', expire_logs_days: '3' }, expireSeconds: 86_400 });
    expect(statements[0]).toMatch(/^SHOW GLOBAL VARIABLES WHERE Variable_name IN/);
  });

  it('falls back to expire_logs_days (in days, fractions allowed) when the seconds are 0 or absent', async () => {
    expect((await captureSettings(fakeConnection(() => [{ Variable_name: 'binlog_expire_logs_seconds', Value: '0' }, { Variable_name: 'expire_logs_days', Value: '1.5' }]).connection)).expireSeconds).toBe(129_600);
    expect((await captureSettings(fakeConnection(() => [{ Variable_name: 'expire_logs_days', Value: '7' }]).connection)).expireSeconds).toBe(604_800);
    expect((await captureSettings(fakeConnection(() => []).connection)).expireSeconds).toBe(0);
  });
});

describe('reconcileRetention: the binary log is kept at least as long as the replication\'s retention', () => {
  const twoDays = 2 * 86_400;

  it('does nothing when the server never expires its log (0)', async () => {
    const { connection, statements } = fakeConnection(() => []);
    expect(await reconcileRetention(connection, settings({ binlog_expire_logs_seconds: '0' }, 0), twoDays, '2 Days')).toEqual({ problems: [], note: '' });
    expect(statements).toEqual([]);
  });

  it('does nothing when the server keeps its log long enough', async () => {
    const { connection, statements } = fakeConnection(() => []);
    expect(await reconcileRetention(connection, settings({ binlog_expire_logs_seconds: '2592000' }, 2_592_000), twoDays, '2 Days')).toEqual({ problems: [], note: '' });
    expect(await reconcileRetention(connection, settings({ binlog_expire_logs_seconds: '172800' }, twoDays), twoDays, '2 Days')).toEqual({ problems: [], note: '' });
    expect(statements).toEqual([]);
  });

  it('raises a shorter expiry where the login may, and says the configuration file must follow', async () => {
    const { connection, statements } = fakeConnection(() => []);
    const check = await reconcileRetention(connection, settings({ binlog_expire_logs_seconds: '3600' }, 3600), twoDays, '2 Days');
    expect(statements).toEqual(['SET GLOBAL binlog_expire_logs_seconds = 172800']);
    expect(check.problems).toEqual([]);
    expect(check.note).toMatch(/kept its binary log 3600 s, less than ChangeTrackingRetentionPeriod 2 Days/);
    expect(check.note).toMatch(/binlog_expire_logs_seconds was raised to 172800/);
    expect(check.note).toMatch(/configuration file/);
  });

  it('raises expire_logs_days, in whole days rounded up, on a server without binlog_expire_logs_seconds', async () => {
    const { connection, statements } = fakeConnection(() => []);
    const check = await reconcileRetention(connection, settings({ expire_logs_days: '1' }, 86_400), 36 * 3600, '36 Hours');
    expect(statements).toEqual(['SET GLOBAL expire_logs_days = 2']);
    expect(check.note).toMatch(/expire_logs_days was raised to 2/);
  });

  it('says how to raise it, naming the setting and the value, when the login may not', async () => {
    const denied = Object.assign(new Error('Access denied; you need (at least one of) the SUPER privilege(s)'), { errno: 1227, sqlState: '42000' });
    const { connection, statements } = fakeConnection(() => denied);
    const check = await reconcileRetention(connection, settings({ binlog_expire_logs_seconds: '3600' }, 3600), twoDays, '2 Days');
    expect(statements).toEqual(['SET GLOBAL binlog_expire_logs_seconds = 172800']);
    expect(check.note).toBe('');
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toMatch(/keeps its binary log 3600 s \(binlog_expire_logs_seconds\), less than ChangeTrackingRetentionPeriod 2 Days/);
    expect(check.problems[0]).toMatch(/SET GLOBAL binlog_expire_logs_seconds = 172800/);
    expect(check.problems[0]).not.toMatch(/SUPER/);
  });
});

/**
 * SHOW GRANTS answers one row per grant, in one column named for the account ("Grants for svc@%"), each a GRANT statement
 * (MySQL 8.0 reference manual, "SHOW GRANTS Statement"; static privileges on one line, each dynamic privilege such as
 * FLUSH_TABLES on a line of its own); MariaDB 10.5+ says BINLOG MONITOR where MySQL says REPLICATION CLIENT.
 */
function serverGranting(version: string, grants: string[]) {
  return fakeConnection((sql) => {
    if (sql.startsWith('SELECT VERSION()')) return [{ version }];
    if (sql === 'SHOW GRANTS') return grants.map((grant) => ({ 'Grants for svc@%': grant }));
    return new Error(`unexpected statement ${sql}`);
  }).connection;
}

describe('privilegeProblems: what the login lacks, each with its GRANT', () => {
  const MYSQL = '8.0.36';
  const MARIADB = '10.11.6-MariaDB-0+deb12u1-log';

  it('finds nothing missing on MariaDB with replication and SELECT (its seed needs no lock)', async () => {
    const connection = serverGranting(MARIADB, ['GRANT SELECT, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `svc`@`%`']);
    await expect(privilegeProblems(connection, 'shop')).resolves.toEqual([]);
  });

  it('asks MySQL for RELOAD: its seed starts under an instant\'s FLUSH TABLES WITH READ LOCK', async () => {
    const connection = serverGranting(MYSQL, ['GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `svc`@`%`']);
    const problems = await privilegeProblems(connection, 'shop');
    expect(problems).toEqual([expect.stringContaining('GRANT RELOAD ON *.* TO')]);
  });

  it('takes RELOAD, or the FLUSH_TABLES dynamic privilege on a line of its own, on MySQL', async () => {
    const reload = serverGranting(MYSQL, ['GRANT SELECT, RELOAD, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `svc`@`%`']);
    await expect(privilegeProblems(reload, 'shop')).resolves.toEqual([]);
    const dynamic = serverGranting(MYSQL, ['GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `svc`@`%`', 'GRANT FLUSH_TABLES ON *.* TO `svc`@`%`']);
    await expect(privilegeProblems(dynamic, 'shop')).resolves.toEqual([]);
  });

  it('wants the replication privileges on *.*, and SELECT on the database or everything', async () => {
    const connection = serverGranting(MARIADB, ['GRANT USAGE ON *.* TO `svc`@`%`', 'GRANT SELECT, REPLICATION SLAVE ON `shop`.* TO `svc`@`%`']);
    const problems = await privilegeProblems(connection, 'shop');
    expect(problems).toEqual([expect.stringContaining('GRANT REPLICATION SLAVE ON *.*'), expect.stringContaining('GRANT REPLICATION CLIENT ON *.*')]);
    await expect(privilegeProblems(connection, null)).resolves.toContainEqual(expect.stringContaining('GRANT SELECT ON *.*'));
  });
});
