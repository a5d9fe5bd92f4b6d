// Minimal typing of the embedded S3 server (npm s3rver 3.x), for the local stack and tests.
declare module 's3rver' {
  interface S3rverOptions {
    /** A TCP port, or the path of a Unix socket to listen on. */
    port?: number | string;
    address?: string;
    directory?: string;
    silent?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string; configs?: Array<string | Buffer> }[];
  }
  class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<{ address: string; port: number } | string>;
    close(): Promise<void>;
  }
  export = S3rver;
}
