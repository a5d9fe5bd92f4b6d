import { Client } from 'pg';
import type { RowStream } from '@svc/engines';

/** A CSV field as PostgreSQL writes it: null for an unquoted empty field, else the text. */
export type CsvField = string | null;

/** Reads a row stream to its end. */
export async function readAll(stream: RowStream): Promise<{ csv: string; rowCount: number }> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream.rows) chunks.push(chunk);
  const { rowCount } = await stream.finished;
  return { csv: Buffer.concat(chunks).toString('utf8'), rowCount };
}

/** Parses COPY … (FORMAT csv) output, telling NULL (unquoted empty) from the empty string (""). */
export function parseCsv(csv: string): CsvField[][] {
  const rows: CsvField[][] = [];
  let row: CsvField[] = [];
  let index = 0;
  while (index < csv.length) {
    let field: CsvField;
    if (csv[index] === '"') {
      let text = '';
      index += 1;
      for (;;) {
        const quote = csv.indexOf('"', index);
        if (quote < 0) throw new Error('unterminated quoted field');
        text += csv.slice(index, quote);
        if (csv[quote + 1] === '"') {
          text += '"';
          index = quote + 2;
        } else {
          index = quote + 1;
          break;
        }
      }
      field = text;
    } else {
      let end = index;
      while (end < csv.length && csv[end] !== ',' && csv[end] !== '\n') end += 1;
      const text = csv.slice(index, end);
      field = text === '' ? null : text;
      index = end;
    }
    row.push(field);
    if (csv[index] === ',') {
      index += 1;
    } else {
      rows.push(row);
      row = [];
      index += 1;
    }
  }
  return rows;
}

/** A client of its own (a second session next to the connector's pool). */
export async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Rows sorted by their CSV text, so assertions do not depend on the order COPY wrote them in. */
export function sortedRows(rows: CsvField[][]): CsvField[][] {
  return [...rows].sort((left, right) => JSON.stringify(left).localeCompare(JSON.stringify(right)));
}
