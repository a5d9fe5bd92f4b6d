/** A connection string or URL that cannot be turned into a driver config. The message never quotes the input. */
export class ConnectionStringError extends Error {
  override readonly name = 'ConnectionStringError';
}
