import { NatsSettingsError, openRegistryConnection } from './registry-connection';

describe('openRegistryConnection', () => {
  it('refuses unusable NATS credentials before connecting, naming the setting and not its value', async () => {
    const attempt = openRegistryConnection('tls://127.0.0.1:1', undefined, { NATS_NKEY_SEED: 'SUsecret-looking-but-wrong', NATS_CA_FILE: '/nonexistent/ca.pem' });
    await expect(attempt).rejects.toBeInstanceOf(NatsSettingsError);
    const error = (await attempt.catch((caught: unknown) => caught)) as NatsSettingsError;
    expect(error.problems).toEqual(["NATS_NKEY_SEED: must be a user nkey seed (58 characters starting with 'SU')", 'NATS_CA_FILE: cannot read the file (ENOENT)']);
    expect(error.message).not.toContain('secret-looking');
  });

  it("uses npm start's operator seed only when the environment names no NATS identity", async () => {
    const malformed = 'SUnot-a-seed';
    // The stack's seed is taken (and found malformed here, before any connection)…
    await expect(openRegistryConnection('nats://127.0.0.1:1', malformed, {})).rejects.toMatchObject({ problems: [expect.stringMatching(/^NATS_NKEY_SEED/)] });
    // …but a user's own NATS_USER/NATS_PASSWORD wins: no seed problem, the connection is tried (and refused).
    const own = openRegistryConnection('nats://127.0.0.1:1', malformed, { NATS_USER: 'operator', NATS_PASSWORD: 'pw' });
    await expect(own).rejects.not.toBeInstanceOf(NatsSettingsError);
  });
});
