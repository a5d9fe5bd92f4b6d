/** Host and port as connection strings and URLs name them, whatever the engine. */

/** A TCP port from 1 to 65535, or undefined. */
export function parsePort(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{1,5}$/.test(trimmed)) return undefined;
  const port = Number(trimmed);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** A DNS name, an IPv4 address or an IPv6 address (brackets already removed). */
export function isHostName(host: string): boolean {
  const dnsOrIpv4 = /^[a-z0-9]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i;
  const ipv6 = /^[0-9a-f:.]+$/i;
  return dnsOrIpv4.test(host) || (ipv6.test(host) && host.includes(':'));
}

/** `[::1]` → `::1`: an IPv6 host without its URL brackets. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
