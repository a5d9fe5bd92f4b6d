import type { NodemailerError } from 'nodemailer';

/** Nodemailer codes (nodemailer/lib/errors) of failures that the same message to the same relay would meet again. */
const TERMINAL_CODES = new Set(['ECONFIG', 'ENOAUTH', 'EENVELOPE', 'EMESSAGE', 'ETLS', 'EREQUIRETLS', 'EMAXRECIPIENTS', 'EFILEACCESS', 'EURLACCESS']);
/** Certificate checks that failed (Node's TLS error codes): a configuration to fix, not a relay to wait for. */
const CERTIFICATE_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME/;

export interface SmtpFailure {
  retryable: boolean;
  /** Nodemailer's code (and the socket's, as ESOCKET/ECONNREFUSED), for the message; the SMTP reply is in the error's message. */
  detail: string;
}

/**
 * RFC 5321 §4.2.1: a 4yz reply is transient, a 5yz reply permanent (nodemailer's `permanent` says so, with 503 "bad
 * sequence" as transient). Without a reply: connection errors and timeouts are retryable; configuration, envelope, STARTTLS and
 * certificate failures are not.
 */
export function classifySmtpError(error: unknown): SmtpFailure {
  const failure: NodemailerError = typeof error === 'object' && error !== null ? (error as NodemailerError) : new Error(String(error));
  const code = failure.code ?? 'ERROR';
  if (typeof failure.responseCode === 'number') {
    const permanent = failure.permanent ?? failure.responseCode >= 500;
    return { retryable: !permanent, detail: code };
  }
  const original = failure.originalCode ?? '';
  if (TERMINAL_CODES.has(code) || CERTIFICATE_FAILURE.test(original) || CERTIFICATE_FAILURE.test(code)) return { retryable: false, detail: `${code}${original === '' ? '' : `/${original}`}` };
  return { retryable: true, detail: `${code}${original === '' ? '' : `/${original}`}${failure.timeoutType === undefined ? '' : ` ${failure.timeoutType}`}` };
}
