import { stripBrackets } from './host-port';

/** The parts of a `scheme://user:password@host:port/path?query` connection URL, percent-decoded. */
export interface ServerUrl {
  /** Lower-case scheme without `:`. */
  scheme: string;
  /** Empty when the URL names no host. */
  host: string;
  port?: number;
  user?: string;
  password?: string;
  /** Decoded, non-empty path segments. */
  path: string[];
  /** Query parameters with lower-case names. */
  params: ReadonlyMap<string, string>;
}

/** Parses a connection URL; null when it is not a URL or a component is badly percent-encoded. */
export function parseServerUrl(text: string): ServerUrl | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  try {
    const params = new Map<string, string>();
    url.searchParams.forEach((value, name) => params.set(name.toLowerCase(), value));
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    return {
      scheme: url.protocol.slice(0, -1).toLowerCase(),
      host: stripBrackets(decodeURIComponent(url.hostname)),
      ...(url.port !== '' && { port: Number(url.port) }),
      ...(user !== '' && { user }),
      ...(url.password !== '' && { password }),
      path: url.pathname
        .split('/')
        .filter((segment) => segment !== '')
        .map((segment) => decodeURIComponent(segment)),
      params,
    };
  } catch {
    return null;
  }
}

/** True when `text` starts with one of the schemes (`postgres`, …) followed by `://`, ignoring case. */
export function hasScheme(text: string, schemes: readonly string[]): boolean {
  const lower = text.trim().toLowerCase();
  return schemes.some((scheme) => lower.startsWith(`${scheme}://`));
}
