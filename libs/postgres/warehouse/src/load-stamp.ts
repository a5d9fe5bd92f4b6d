import type { ClientBase } from 'pg';

/*
 * The time a load stamps its rows with (valid_from, valid_to, the update timestamp, its batch's loaded_at): one value
 * per load, taken right after its table's lock. now() is "the start time of the current transaction", which begins
 * before the load waits for the lock, while statement_timestamp() is "the start time of the current statement (more
 * specifically, the time of receipt of the latest command message from the client)"
 * (https://www.postgresql.org/docs/current/functions-datetime.html#FUNCTIONS-DATETIME-CURRENT): the statement after the
 * lock starts after the load before it committed, so after that load's stamp, on the server's clock.
 */
const LOAD_STAMP_SQL = `SELECT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS stamp`;
const STAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

/** The load's stamp as the literal its statements use; run right after the table's lock. */
export async function takeLoadStamp(client: ClientBase): Promise<string> {
  const text = (await client.query<{ stamp: unknown }>(LOAD_STAMP_SQL)).rows[0]?.stamp;
  if (typeof text !== 'string' || !STAMP_TEXT.test(text)) throw new Error(`the warehouse answered ${JSON.stringify(text)} for the load's time`);
  return `'${text}+00'::timestamptz`;
}
