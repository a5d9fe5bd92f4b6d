/** A connection string or URL that cannot be turned into a driver config. The message never quotes the input. */
export class ConnectionStringError extends Error {
  override readonly name = 'ConnectionStringError';
}

/** `parse()`, or null when the connection string cannot be parsed (ConnectionStringError); any other error is thrown. */
export function unlessUnparsable<T>(parse: () => T): T | null {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConnectionStringError) return null;
    throw error;
  }
}

/**
 * Runs a connectivity probe: its own answer, the reason a connection string cannot be used (it quotes nothing
 * of the string), or how the attempt failed, worded by `reasonOf`.
 */
export async function probeOrReason(probe: () => Promise<string | null>, reasonOf: (error: unknown) => string): Promise<string | null> {
  try {
    return await probe();
  } catch (error) {
    // Thrown while building the driver config (the probe itself resolves to a reason).
    if (error instanceof ConnectionStringError) return error.message;
    return reasonOf(error);
  }
}
