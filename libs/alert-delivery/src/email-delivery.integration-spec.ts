import { startTestSmtp, type TestSmtp } from '@svc/testing';
import { AlertDeliveryError } from './alert-delivery-error';
import { createAlertSender, type AlertSender } from './alert-sender';
import type { EmailTarget } from './alert-target';
import { sampleAlertNotice } from './testing';

const USER = { user: 'alerts@example.com', pass: 'smtp-pass-w0rd' };
const SENT_AT = new Date('2026-01-02T03:04:06Z');

describe('e-mail delivery to a real SMTP server', () => {
  let sender: AlertSender;
  const servers: TestSmtp[] = [];

  async function smtp(options: Parameters<typeof startTestSmtp>[0]): Promise<TestSmtp> {
    const server = await startTestSmtp(options);
    servers.push(server);
    return server;
  }

  const target = (server: TestSmtp, to = ['oncall@example.com']): EmailTarget => ({ type: 'Email', smtpUrl: server.url, from: 'svc-replication@example.com', to });

  beforeEach(() => {
    sender = createAlertSender({ timeoutMs: 2000, now: () => SENT_AT });
  });

  afterEach(async () => {
    sender.close();
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  it('sends the notice with its subject, idempotency headers and a plain-text body', async () => {
    const server = await smtp({});
    const notice = sampleAlertNotice();
    await sender.send(target(server, ['oncall@example.com', 'dba@example.com']), notice);

    expect(server.received).toHaveLength(1);
    const [mail] = server.received;
    expect(mail).toMatchObject({ mailFrom: 'svc-replication@example.com', rcptTo: ['oncall@example.com', 'dba@example.com'], authenticatedUser: null });
    expect(mail?.headers.get('subject')).toBe('[svc-replication] Failure: orders to warehouse, [dbo].[orders]');
    expect(mail?.headers.get('message-id')).toBe('<alert-0001-ops-target@svc-replication>');
    expect(mail?.headers.get('x-svc-alert-id')).toBe('alert-0001');
    expect(mail?.headers.get('x-svc-delivery-id')).toBe('alert-0001:ops-target');
    expect(mail?.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail?.headers.get('date')).toBe('Fri, 02 Jan 2026 03:04:06 +0000');
    expect(mail?.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(mail?.body).toContain(`${notice.message}\r\n\r\nKind:         Failure\r\n`);
    expect(mail?.body).toContain('Replication:  orders to warehouse (rep-orders)\r\n');
    expect(mail?.body).toContain('Delivery id:  alert-0001:ops-target\r\n');
  });

  it('keeps the Message-ID across attempts', async () => {
    const server = await smtp({});
    await sender.send(target(server), sampleAlertNotice({ attempt: 1 }));
    await sender.send(target(server), sampleAlertNotice({ attempt: 2 }));
    expect(server.received.map((mail) => mail.headers.get('message-id'))).toEqual(['<alert-0001-ops-target@svc-replication>', '<alert-0001-ops-target@svc-replication>']);
    expect(server.received[1]?.body).toContain('Attempt:      2');
  });

  it('logs in with the URL’s credentials, over STARTTLS with a certificate of a trusted private CA', async () => {
    const server = await smtp({ tls: true, users: [USER] });
    const trusting = createAlertSender({ timeoutMs: 2000, smtpTrustedCaPem: server.caPem ?? '' });
    try {
      await trusting.send(target(server), sampleAlertNotice());
    } finally {
      trusting.close();
    }
    expect(server.received).toMatchObject([{ authenticatedUser: USER.user, overTls: true }]);
  });

  it('does not go on over TLS with a certificate it does not trust, nor retry that', async () => {
    const server = await smtp({ tls: true, users: [USER] });
    const failure = await sender.send(target(server), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: false });
    expect(server.received).toHaveLength(0);
  });

  it('a wrong password is refused for good, and the password never shows', async () => {
    const server = await smtp({ users: [USER] });
    const smtpUrl = server.url.replace(encodeURIComponent(USER.pass), 'wrong-secret-pass');
    const failure = await sender.send({ ...target(server), smtpUrl }, sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AlertDeliveryError);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining('535') as string });
    expect((failure as Error).message).not.toMatch(/wrong-secret-pass|alerts%40example.com:/);
    expect((failure as Error).message).toContain(`smtp://127.0.0.1:${server.port}`);
  });

  it('a recipient refused with 550 is not retryable', async () => {
    const server = await smtp({ refuseRecipients: ['gone@example.com'] });
    const failure = await sender.send(target(server, ['gone@example.com']), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining('550') as string });
    expect(server.received).toHaveLength(0);
  });

  it('one refused recipient of several is reported, not retried: the others have the mail', async () => {
    const server = await smtp({ refuseRecipients: ['gone@example.com'] });
    const failure = await sender.send(target(server, ['oncall@example.com', 'gone@example.com']), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining('delivered to 1 of 2 recipients; refused gone@example.com') as string });
    expect(server.received).toMatchObject([{ rcptTo: ['oncall@example.com'] }]);
  });

  it('is retryable while the server is down, and delivers once it is back on the same port', async () => {
    const server = await smtp({ users: [USER] });
    await server.stop();
    const failure = await sender.send(target(server), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: true, message: expect.stringContaining('ECONNREFUSED') as string });
    expect((failure as Error).message).not.toContain(USER.pass);

    await server.restart();
    await sender.send(target(server), sampleAlertNotice({ attempt: 2 }));
    expect(server.received).toHaveLength(1);
  });
});
