/** What a thrown value says about itself, read by shape rather than `instanceof Error`: errors from Node's own fetch and sockets may come from another realm (a VM context, a test runner's sandbox). */
export interface ErrorFields {
  name: string;
  message: string;
  code: string | undefined;
  cause: unknown;
}

export function errorFields(error: unknown): ErrorFields {
  if (typeof error !== 'object' || error === null) return { name: 'Error', message: String(error), code: undefined, cause: undefined };
  const field = (key: string): unknown => (error as Record<string, unknown>)[key];
  const name = field('name');
  const message = field('message');
  const code = field('code');
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : '',
    code: typeof code === 'string' ? code : undefined,
    cause: field('cause'),
  };
}
