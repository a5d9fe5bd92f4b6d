import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates a uniquely named database on the local PostgreSQL; drop() removes it. */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  return {
    name,
    url: `${LOCAL_POSTGRES}/${name}`,
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: `${LOCAL_POSTGRES}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
