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

/** The answer to a path the gateway does not serve: the same whether or not something could be there. */
export const NO_SUCH_RESOURCE_MESSAGE = 'no such resource: operations are called as POST /api/<Operation>';
