import { NatsSettingsError, openRegistryConnection } from './registry-connection';

describe('openRegistryConnection', () => {
  it('refuses unusable NATS credentials before connecting, naming the setting and not its value', async () => {
    const attempt = openRegistryConnection('tls://127.0.0.1:1', { NATS_NKEY_SEED: 'SUsecret-looking-but-wrong', NATS_CA_FILE: '/nonexistent/ca.pem' });
    await expect(attempt).rejects.toBeInstanceOf(NatsSettingsError);
    const error = (await attempt.catch((caught: unknown) => caught)) as NatsSettingsError;
    expect(error.problems).toEqual(["NATS_NKEY_SEED: must be a user nkey seed (58 characters starting with 'SU')", 'NATS_CA_FILE: cannot read the file (ENOENT)']);
    expect(error.message).not.toContain('secret-looking');
  });
});
