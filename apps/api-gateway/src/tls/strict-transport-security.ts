/** One year: browsers then refuse plain HTTP to this host for that long, after one HTTPS visit. Sent over HTTPS only (RFC 6797 §7.2). */
export const STRICT_TRANSPORT_SECURITY = { name: 'Strict-Transport-Security', value: 'max-age=31536000' } as const;
