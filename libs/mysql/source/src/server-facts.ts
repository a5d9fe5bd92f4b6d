import type { RowDataPacket } from 'mysql2';
import type { Connection } from 'mysql2/promise';
import { serverFlavor, type ServerFlavor } from '@svc/mysql/common';
import { CaptureSettingError } from './source-errors';
import { baseNameOf, type BinlogPosition } from './binlog/binlog-position';

/** What a read must know of the server before it reads: which server it is, where its log ends, and its log's life. */
export interface ServerFacts {
  flavor: ServerFlavor;
  /** The files of the binary log the server still has, oldest first. */
  logs: string[];
  /** The end of the log now (SHOW MASTER STATUS). */
  end: BinlogPosition;
  /** Which life of the server's log the positions belong to (SourceConnector's incarnation). */
  incarnation: string;
  serverId: number;
}

/** SHOW MASTER STATUS was renamed SHOW BINARY LOG STATUS in MySQL 8.2 and removed in 8.4; MariaDB keeps the old name. */
export async function logEnd(connection: Connection, flavor: ServerFlavor): Promise<BinlogPosition | null> {
  const statements = flavor === 'mariadb' ? ['SHOW MASTER STATUS'] : ['SHOW BINARY LOG STATUS', 'SHOW MASTER STATUS'];
  let failure: unknown;
  for (const statement of statements) {
    try {
      const [rows] = await connection.query<RowDataPacket[]>(statement);
      const row = rows[0];
      return row === undefined ? null : { file: String(row['File']), position: Number(row['Position']) };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

export async function serverFacts(connection: Connection): Promise<ServerFacts> {
  const flavor = await serverFlavor(connection);
  const end = await logEnd(connection, flavor);
  if (end === null) throw binaryLogOff();
  const [logs] = await connection.query<RowDataPacket[]>('SHOW BINARY LOGS');
  const [identity] = await connection.query<RowDataPacket[]>(
    flavor === 'mysql' ? 'SELECT @@server_id AS serverId, @@server_uuid AS uuid' : 'SELECT @@server_id AS serverId, NULL AS uuid',
  );
  const serverId = Number(identity[0]?.['serverId'] ?? 0);
  const uuid: unknown = identity[0]?.['uuid'];
  return {
    flavor,
    logs: logs.map((row) => String(row['Log_name'])),
    end,
    incarnation: `${flavor}:${typeof uuid === 'string' ? uuid : `server-${serverId}`}:${baseNameOf(end.file)}`,
    serverId,
  };
}

/** The server writes no binary log: nothing can be followed until log_bin is on (a restart with --log-bin). */
export function binaryLogOff(): CaptureSettingError {
  return new CaptureSettingError('the server writes no binary log: start it with log_bin on (--log-bin) to follow changes');
}
