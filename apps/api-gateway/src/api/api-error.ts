/** A failure that ends an API call with a given HTTP status and messages safe to show the caller. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(messages.join('; '));
    this.name = 'ApiError';
  }
}
