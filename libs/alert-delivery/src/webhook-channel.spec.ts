import { classifyWebhookStatus } from './webhook-channel';

describe('classifyWebhookStatus', () => {
  it.each([
    [200, true, false],
    [202, true, false],
    [204, true, false],
    [408, false, true],
    [425, false, true],
    [429, false, true],
    [500, false, true],
    [502, false, true],
    [503, false, true],
    [400, false, false],
    [401, false, false],
    [403, false, false],
    [404, false, false],
    [410, false, false],
    [413, false, false],
  ])('HTTP %i: delivered %s, retryable %s', (status, delivered, retryable) => {
    const failure = classifyWebhookStatus(status, null);
    expect(failure === null).toBe(delivered);
    if (failure !== null) expect(failure.retryable).toBe(retryable);
  });

  it('says the receiver refused, with the status', () => {
    expect(classifyWebhookStatus(403, null)?.reason).toBe('the receiver refused the notice with HTTP 403');
  });

  it('does not retry a redirect and names its Location without credentials, path or query', () => {
    const failure = classifyWebhookStatus(302, 'https://user:pw@elsewhere.example/hook-secret?token=abc');
    expect(failure?.retryable).toBe(false);
    expect(failure?.reason).toContain('Location https://elsewhere.example/…');
    expect(failure?.reason).not.toMatch(/pw|token|abc|hook-secret/);
  });
});
