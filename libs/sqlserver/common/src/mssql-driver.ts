import type * as Mssql from 'mssql';
import type * as Tedious from 'tedious';

/*
 * mssql and tedious cost a process about 0.3 s of CPU to load, and every worker loads the engine list: they are loaded
 * when a SQL Server connection is first made, not when the service starts, so that a deployment (or a restarted
 * worker) that never talks to SQL Server does not pay for them.
 */
let mssqlModule: typeof Mssql | undefined;
let tediousModule: typeof Tedious | undefined;

/** The mssql driver, loaded on first use. */
export function mssqlDriver(): typeof Mssql {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (see above)
  return (mssqlModule ??= require('mssql') as typeof Mssql);
}

/** The tedious driver underneath mssql, loaded on first use. */
export function tediousDriver(): typeof Tedious {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (see above)
  return (tediousModule ??= require('tedious') as typeof Tedious);
}
