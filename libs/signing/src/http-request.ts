/**
 * A request as the signer and the verifier see it.
 * `path` is the path exactly as it appears on the request line, without the query string.
 * `query` holds decoded names and values. Header names may have any case.
 */
export interface HttpRequestToSign {
  method: string;
  path: string;
  query?: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | string;
}

/** Every value of a header, matched case-insensitively, in the order they appear. */
export function headerValues(headers: HttpRequestToSign['headers'], name: string): string[] {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [headerName, value] of Object.entries(headers)) {
    if (value === undefined || headerName.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  return values;
}
