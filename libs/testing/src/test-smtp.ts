import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateAuthority } from '@svc/crypto';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { RestartablePort } from './restartable-server';

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that records what it receives. With `tls` it offers
 * STARTTLS (RFC 3207) with a certificate for 127.0.0.1 and localhost from a private CA made for it (`caPem`, for the
 * client to trust), and accepts AUTH only after the upgrade; without, it speaks plain text (AUTH too: loopback only).
 * With `users`, AUTH PLAIN and LOGIN (RFC 4954) are required and a wrong password is refused with 535 5.7.8.
 * Recipients listed in `refuseRecipients` are refused at RCPT TO with 550 5.1.1 (RFC 5321 §4.2.2, RFC 3463).
 */
export interface TestSmtp {
  host: string;
  port: number;
  /** smtp://[user:pass@]127.0.0.1:<port> for the first user, or without credentials. */
  url: string;
  /** The private CA that issued the STARTTLS certificate; null without `tls`. */
  caPem: string | null;
  received: ReceivedMail[];
  stop(): Promise<void>;
  /** Listens again on the same port; received mail is kept. */
  restart(): Promise<void>;
}

export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  /** The message as sent after DATA (headers and body, CRLF line ends). */
  raw: string;
  /** Header fields by lower-case name, unfolded, first occurrence. */
  headers: Map<string, string>;
  body: string;
  authenticatedUser: string | null;
  /** Whether it came over TLS (STARTTLS). */
  overTls: boolean;
}

export interface SmtpUser {
  user: string;
  pass: string;
}

export interface TestSmtpOptions {
  tls?: boolean;
  users?: readonly SmtpUser[];
  refuseRecipients?: readonly string[];
}

export async function startTestSmtp(options: TestSmtpOptions = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const users = options.users ?? [];
  const refused = new Set((options.refuseRecipients ?? []).map((address) => address.toLowerCase()));
  const certificate = options.tls === true ? issueLoopbackCertificate() : null;

  const server = new SMTPServer({
    logger: false,
    banner: 'svc-replication test SMTP',
    closeTimeout: 50,
    ...(certificate === null ? { hideSTARTTLS: true } : { key: certificate.keyPem, cert: certificate.certPem }),
    authMethods: ['PLAIN', 'LOGIN'],
    ...(users.length === 0 ? { authOptional: true, disabledCommands: ['AUTH'] } : { authOptional: false, allowInsecureAuth: certificate === null }),
    onAuth(auth, _session, callback) {
      const known = users.find((candidate) => candidate.user === auth.username && candidate.pass === auth.password);
      if (known === undefined) callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      else callback(null, { user: known.user });
    },
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address.toLowerCase())) callback(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      void record(stream, session).then(
        () => callback(),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    },
  });
  server.on('error', () => undefined);

  async function record(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const [head = '', ...rest] = raw.split('\r\n\r\n');
    const mailFrom = session.envelope.mailFrom;
    received.push({
      mailFrom: mailFrom === false ? '' : mailFrom.address,
      rcptTo: session.envelope.rcptTo.map((recipient) => recipient.address),
      raw,
      headers: headerFields(head),
      body: rest.join('\r\n\r\n'),
      authenticatedUser: typeof session.user === 'string' ? session.user : null,
      overTls: session.secure === true,
    });
  }

  const port = new RestartablePort(server.server, () => {
    for (const connection of server.connections) connection.close();
  });
  await port.start();
  const [firstUser] = users;
  const credentials = firstUser === undefined ? '' : `${encodeURIComponent(firstUser.user)}:${encodeURIComponent(firstUser.pass)}@`;
  return {
    host: '127.0.0.1',
    port: port.boundPort,
    url: `smtp://${credentials}127.0.0.1:${port.boundPort}`,
    caPem: certificate?.caPem ?? null,
    received,
    stop: () => port.stop(),
    restart: () => port.start(),
  };
}

/** A certificate for 127.0.0.1 and localhost from a CA made for this server alone (the repo's private CA helper). */
function issueLoopbackCertificate(): { keyPem: string; certPem: string; caPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-smtp-'));
  try {
    const authority = CertificateAuthority.create(join(dir, 'ca'), { subject: 'svc-replication test SMTP CA' });
    const issued = authority.issue({ name: 'smtp', hosts: ['127.0.0.1', 'localhost'] });
    return { keyPem: readFileSync(issued.keyFile, 'utf8'), certPem: readFileSync(issued.certFile, 'utf8'), caPem: authority.certPem };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function headerFields(head: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
  }
  return fields;
}
