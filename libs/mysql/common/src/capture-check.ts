import type { RowDataPacket } from 'mysql2';
import type { Connection } from 'mysql2/promise';
import { serverFlavor } from './server-flavor';

/** The server settings change capture reads, as SHOW GLOBAL VARIABLES names them (absent on a server that has no such setting). */
const SETTINGS = [
  'log_bin',
  'binlog_format',
  'binlog_row_image',
  'binlog_expire_logs_seconds',
  'expire_logs_days',
  'binlog_row_value_options',
  'binlog_transaction_compression',
  'log_bin_compress',
] as const;
type Setting = (typeof SETTINGS)[number];

export interface CaptureSettings {
  values: Partial<Record<Setting, string>>;
  /** Seconds the server keeps binary-log files for; 0: it never removes them by age. */
  expireSeconds: number;
}

export async function captureSettings(connection: Connection): Promise<CaptureSettings> {
  const [rows] = await connection.query<RowDataPacket[]>(`SHOW GLOBAL VARIABLES WHERE Variable_name IN (${SETTINGS.map(() => '?').join(', ')})`, [...SETTINGS]);
  const values: Partial<Record<Setting, string>> = {};
  for (const row of rows) values[String(row['Variable_name']) as Setting] = String(row['Value']);
  const seconds = Number(values.binlog_expire_logs_seconds ?? 0);
  const days = Number(values.expire_logs_days ?? 0);
  return { values, expireSeconds: seconds > 0 ? seconds : Math.round(days * 86_400) };
}

/**
 * Why the server's binary log cannot be followed as it is set, each naming the setting and its fix; empty when it can.
 * The setting names are the server's own, so a DBA can paste the fix.
 */
export function settingProblems({ values }: CaptureSettings): string[] {
  const problems: string[] = [];
  const is = (setting: Setting, expected: string) => (values[setting] ?? '').toUpperCase() === expected;
  if (!is('log_bin', 'ON')) {
    problems.push('binary logging is off (log_bin is OFF): start the server with log_bin on (--log-bin, or log_bin in its configuration file) and binlog_format=ROW');
    return problems;
  }
  if (!is('binlog_format', 'ROW')) {
    problems.push(`binlog_format is ${values.binlog_format ?? 'unknown'}, and changes are read from row events: SET GLOBAL binlog_format = 'ROW' and binlog_format=ROW in the server's configuration file`);
  }
  if (values.binlog_row_image !== undefined && !is('binlog_row_image', 'FULL')) {
    problems.push(`binlog_row_image is ${values.binlog_row_image}, and a key change needs the whole row image: SET GLOBAL binlog_row_image = 'FULL' and binlog_row_image=FULL in the server's configuration file`);
  }
  if (values.binlog_row_value_options !== undefined && values.binlog_row_value_options !== '') {
    problems.push(`binlog_row_value_options is ${values.binlog_row_value_options}: SET GLOBAL binlog_row_value_options = ''`);
  }
  if (is('binlog_transaction_compression', 'ON')) problems.push('binlog_transaction_compression is ON, and compressed transactions are not read: SET GLOBAL binlog_transaction_compression = OFF');
  if (is('log_bin_compress', 'ON')) problems.push('log_bin_compress is ON, and compressed events are not read: SET GLOBAL log_bin_compress = OFF');
  return problems;
}

/** The privileges reading the binary log and the tables needs, in SHOW GRANTS' words (MariaDB 10.5 renamed two). */
const REPLICATION_READ = /\b(?:ALL PRIVILEGES|REPLICATION SLAVE|REPLICATION REPLICA)\b/i;
const LOG_STATUS = /\b(?:ALL PRIVILEGES|REPLICATION CLIENT|BINLOG MONITOR|SUPER)\b/i;
const SELECT = /\b(?:ALL PRIVILEGES|SELECT)\b/i;
/**
 * MySQL's seed holds FLUSH TABLES WITH READ LOCK for an instant (MariaDB reports its snapshot's position instead), which
 * takes RELOAD, or MySQL 8.0's FLUSH_TABLES dynamic privilege (WL#14303, which keeps RELOAD allowing it). Without
 * either, every seed failed at its first statement instead of at Create.
 */
const READ_LOCK = /\b(?:ALL PRIVILEGES|RELOAD|FLUSH_TABLES)\b/i;

/** What the login lacks to read the database's tables and the binary log, each with the GRANT that gives it. */
export async function privilegeProblems(connection: Connection, database: string | null): Promise<string[]> {
  const flavor = await serverFlavor(connection);
  const [rows] = await connection.query<RowDataPacket[]>('SHOW GRANTS');
  const grants = rows.map((row) => String(Object.values(row)[0] ?? ''));
  const on = (pattern: RegExp, scopes: readonly string[]) =>
    grants.some((grant) => {
      const match = /^GRANT (.+?) ON (\S+) TO /i.exec(grant);
      return match !== null && pattern.test(match[1] ?? '') && scopes.includes((match[2] ?? '').toLowerCase());
    });
  const global = ['*.*'];
  const databaseScopes = database === null ? global : ['*.*', `\`${database.replaceAll('`', '``')}\`.*`.toLowerCase()];
  const problems: string[] = [];
  const user = "'<user>'@'<host>'";
  if (!on(REPLICATION_READ, global)) problems.push(`the login may not read the binary log: GRANT REPLICATION SLAVE ON *.* TO ${user}`);
  if (!on(LOG_STATUS, global)) problems.push(`the login may not see where the binary log ends: GRANT REPLICATION CLIENT ON *.* TO ${user}`);
  if (flavor === 'mysql' && !on(READ_LOCK, global)) problems.push(`the login may not hold the instant's global read lock a seed starts with: GRANT RELOAD ON *.* TO ${user}`);
  const scope = database === null ? '*.*' : `\`${database}\`.*`;
  if (!on(SELECT, databaseScopes)) problems.push(`the login may not read every table of ${database ?? 'the server'}: GRANT SELECT ON ${scope} TO ${user}`);
  return problems;
}

/** Hours of a retention period as the API states it (`2 Days`, `12 Hours`), seconds here. */
export interface RetentionCheck {
  problems: string[];
  note: string;
}

/**
 * Keeps the server's binary log at least `retentionSeconds` (the replication's ChangeTrackingRetentionPeriod): a shorter
 * expiry is raised with SET GLOBAL where the login may (and said so: the configuration file must follow, or a restart
 * brings the old value back), else refused with the statement that fixes it.
 */
export async function reconcileRetention(connection: Connection, settings: CaptureSettings, retentionSeconds: number, retentionText: string): Promise<RetentionCheck> {
  if (settings.expireSeconds === 0 || settings.expireSeconds >= retentionSeconds) return { problems: [], note: '' };
  const setting = settings.values.binlog_expire_logs_seconds !== undefined ? 'binlog_expire_logs_seconds' : 'expire_logs_days';
  const value = setting === 'binlog_expire_logs_seconds' ? String(retentionSeconds) : String(Math.ceil(retentionSeconds / 86_400));
  try {
    await connection.query(`SET GLOBAL ${setting} = ${value}`);
    return {
      problems: [],
      note: `The source server kept its binary log ${settings.expireSeconds} s, less than ChangeTrackingRetentionPeriod ${retentionText}: ${setting} was raised to ${value}; set it in the server's configuration file too, or a restart brings the old value back.`,
    };
  } catch {
    return {
      problems: [
        `the server keeps its binary log ${settings.expireSeconds} s (${setting}), less than ChangeTrackingRetentionPeriod ${retentionText}, and the login may not raise it: SET GLOBAL ${setting} = ${value} (and in the server's configuration file)`,
      ],
      note: '',
    };
  }
}
