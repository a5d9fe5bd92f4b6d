// Tested against the name without separators, so connection_string, private-key and Secret Access Key match too.
const SECRET_NAME = /pass(word)?|pwd|secret|credential|connectionstring|accesskey|apikey|privatekey|sslkey|token|authorization|masterkey|signingkey/i;

/** Whether a field, parameter or keyword of that name holds a secret (password, sslpassword, SECRET_ACCESS_KEY, …). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.replace(/[-_\s.]/g, ''));
}
