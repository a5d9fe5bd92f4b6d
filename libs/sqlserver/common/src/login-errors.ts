import type { config as MssqlConfig } from 'mssql';
import { isRecord } from '@svc/engines';

/**
 * tedious 19 raises every server error of the login phase as `ConnectionError(message, 'ELOGIN')` and keeps
 * neither the error number nor more than the last message (node_modules/tedious/lib/token/handler.js:184-191);
 * mssql copies only its message and code (node_modules/mssql/lib/error/mssql-error.js). SQL Server follows the
 * cause with 18456 "Login failed" (4060 "Cannot open database", then 18456), so the kept message is no guide.
 * tedious does emit each ERROR token ('errorMessage', with its number) before raising: these numbers are
 * collected on the connection and put on the error tedious raises, as `loginErrorNumbers`.
 */
export function withLoginErrorNumbers(config: MssqlConfig): MssqlConfig {
  const before = config.beforeConnect;
  return {
    ...config,
    beforeConnect: (connection) => {
      const numbers: number[] = [];
      connection.on('errorMessage', (token) => numbers.push(token.number));
      // Runs in the same 'connect' emit as mssql's callback, before anyone awaiting the rejection sees the error.
      connection.on('connect', (error?: Error) => {
        if (error) Object.assign(error, { loginErrorNumbers: numbers });
      });
      before?.(connection);
    },
  };
}

/** The server's error numbers of a failed login, in the order it sent them (mssql keeps tedious's error as originalError); empty when unknown. */
export function loginErrorNumbers(error: unknown): readonly number[] {
  for (let cause = error, depth = 0; isRecord(cause) && depth < 3; depth += 1) {
    const numbers = cause['loginErrorNumbers'];
    if (Array.isArray(numbers)) return numbers.filter((number): number is number => typeof number === 'number');
    cause = cause['originalError'];
  }
  return [];
}
