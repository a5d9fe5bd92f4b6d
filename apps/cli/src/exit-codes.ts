/** Process exit codes of `svc`; 64, 66 and 78 follow sysexits.h. */
export const ExitCode = {
  Ok: 0,
  /** The service answered with an error (HTTP status ≥ 300, or an RPC error reply). */
  Failed: 1,
  /** The service could not be reached at all. */
  Unreachable: 2,
  Usage: 64,
  /** A --file that cannot be read. */
  NoInput: 66,
  /** Missing or unreadable credentials / profile or CA file; plain HTTP beyond loopback without --insecure. */
  Configuration: 78,
  /** Stopped by Ctrl-C (128 + SIGINT, as shells report it). */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad command line: reported with the usage text. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure with a message fit for the user and a known exit code; never carries a secret. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}
