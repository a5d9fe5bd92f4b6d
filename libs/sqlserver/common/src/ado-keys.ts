/** SqlClient's synonyms for the keys we read, in normalised (lower-case) form. */
export const ADO_KEYS = {
  server: ['server', 'data source', 'address', 'addr', 'network address'],
  database: ['database', 'initial catalog'],
  user: ['user id', 'uid', 'user', 'username'],
  password: ['password', 'pwd'],
  encrypt: ['encrypt'],
  trustServerCertificate: ['trustservercertificate', 'trust server certificate'],
  applicationName: ['application name', 'app'],
} as const;
