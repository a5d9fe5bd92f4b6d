import type { RowDataPacket } from 'mysql2';
import type { Connection } from 'mysql2/promise';

export type ServerFlavor = 'mariadb' | 'mysql';

/** MariaDB says so in its version string (`10.11.6-MariaDB-…`); every other server speaking the protocol is taken for MySQL. */
export async function serverFlavor(connection: Connection): Promise<ServerFlavor> {
  const [rows] = await connection.query<RowDataPacket[]>('SELECT VERSION() AS version');
  return /mariadb/i.test(String(rows[0]?.['version'] ?? '')) ? 'mariadb' : 'mysql';
}
