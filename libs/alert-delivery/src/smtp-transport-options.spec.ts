import { parseSmtpUrl } from './smtp-transport-options';

const settings = { timeoutMs: 1234 };

describe('parseSmtpUrl', () => {
  it('smtp:// requires STARTTLS on port 587 by default, with the URL-decoded credentials', () => {
    const parsed = parseSmtpUrl('smtp://alerts%40example.com:p%40ss@mail.example.com', settings);
    if ('invalid' in parsed) throw new Error(parsed.invalid);
    expect(parsed.options).toMatchObject({ host: 'mail.example.com', port: 587, secure: false, requireTLS: true, auth: { user: 'alerts@example.com', pass: 'p@ss' } });
    expect(parsed.options).toMatchObject({ connectionTimeout: 1234, greetingTimeout: 1234, socketTimeout: 1234 });
    expect(parsed.shownUrl).toBe('smtp://mail.example.com');
    expect(parsed.secrets).toEqual(expect.arrayContaining(['p@ss', 'p%40ss']));
  });

  it('smtps:// is implicit TLS on port 465', () => {
    const parsed = parseSmtpUrl('smtps://u:p@mail.example.com', settings);
    expect(parsed).toMatchObject({ options: { port: 465, secure: true, requireTLS: false } });
  });

  it('smtp:// to a loopback relay may go without STARTTLS', () => {
    expect(parseSmtpUrl('smtp://127.0.0.1:2525', settings)).toMatchObject({ options: { port: 2525, requireTLS: false } });
    expect(parseSmtpUrl('smtp://127.0.0.1:2525', settings)).not.toHaveProperty('options.auth');
  });

  it.each([['https://mail.example.com'], ['smtp://'], ['not a url']])('refuses %s', (url) => {
    expect(parseSmtpUrl(url, settings)).toHaveProperty('invalid');
  });
});
