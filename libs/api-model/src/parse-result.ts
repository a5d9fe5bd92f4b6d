export type ParseResult<T> = { ok: true; value: T } | { ok: false; messages: string[] };
