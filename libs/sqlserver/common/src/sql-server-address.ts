import { isHostName, parsePort, stripBrackets } from '@svc/engines';

/** Where a SQL Server listens, as named by an ADO `Server=` value or an mssql:// URL. */
export interface SqlServerAddress {
  host: string;
  /** Absent when a named instance is resolved through the SQL Browser service, or the default 1433 applies. */
  port?: number;
  instanceName?: string;
}

export const SQL_SERVER_DEFAULT_PORT = 1433;
/** The URL form of a SQL Server connection string: `mssql://user:password@host:port/database`. */
export const SQL_SERVER_SCHEMES = ['mssql'] as const;

const LOCAL_HOST_ALIASES = new Set(['.', '(local)', '(localhost)']);

/**
 * Parses `tcp:host,port`, `host,port`, `host\instance`, `host\instance,port`, `(local)` and `.`.
 * Named pipes (`np:`), shared memory (`lpc:`) and LocalDB are not reachable over TCP: null.
 */
export function parseSqlServerAddress(value: string): SqlServerAddress | null {
  let text = value.trim();
  const protocol = /^(tcp|np|lpc|admin)\s*:/i.exec(text);
  if (protocol) {
    if (protocol[1]?.toLowerCase() !== 'tcp') return null;
    text = text.slice(protocol[0].length).trim();
  }

  let port: number | undefined;
  const comma = text.lastIndexOf(',');
  if (comma !== -1) {
    port = parsePort(text.slice(comma + 1));
    if (port === undefined) return null;
    text = text.slice(0, comma).trim();
  }

  let instanceName: string | undefined;
  const backslash = text.indexOf('\\');
  if (backslash !== -1) {
    instanceName = text.slice(backslash + 1).trim();
    text = text.slice(0, backslash).trim();
    if (instanceName === '' || instanceName.includes('\\')) return null;
  }

  if (text.toLowerCase() === '(localdb)') return null;
  const host = LOCAL_HOST_ALIASES.has(text.toLowerCase()) ? 'localhost' : stripBrackets(text);
  if (!isHostName(host)) return null;
  return {
    host,
    ...(port !== undefined && { port }),
    ...(instanceName !== undefined && { instanceName }),
  };
}
