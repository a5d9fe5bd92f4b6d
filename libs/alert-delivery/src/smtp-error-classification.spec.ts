import type { NodemailerError } from 'nodemailer';
import { classifySmtpError } from './smtp-error-classification';

function smtpError(fields: Partial<NodemailerError>): NodemailerError {
  return Object.assign(new Error('failed'), fields);
}

describe('classifySmtpError', () => {
  it.each([
    ['550 mailbox unavailable', smtpError({ code: 'EENVELOPE', responseCode: 550, response: '550 5.1.1 mailbox unavailable', permanent: true }), false],
    ['554 transaction failed', smtpError({ code: 'EMESSAGE', responseCode: 554, response: '554 rejected', permanent: true }), false],
    ['535 authentication failed', smtpError({ code: 'EAUTH', responseCode: 535, response: '535 5.7.8 bad credentials', permanent: true }), false],
    ['a 5xx reply without nodemailer’s flag', smtpError({ code: 'EMESSAGE', responseCode: 552 }), false],
    ['421 service not available', smtpError({ code: 'EENVELOPE', responseCode: 421, response: '421 try later', permanent: false }), true],
    ['450 mailbox busy', smtpError({ code: 'EENVELOPE', responseCode: 450, permanent: false }), true],
    ['454 temporary authentication failure', smtpError({ code: 'EAUTH', responseCode: 454, permanent: false }), true],
    ['503 bad sequence (nodemailer: transient)', smtpError({ code: 'EPROTOCOL', responseCode: 503, permanent: false }), true],
    ['a refused connection', smtpError({ code: 'ESOCKET', originalCode: 'ECONNREFUSED' }), true],
    ['a closed connection', smtpError({ code: 'ECONNECTION' }), true],
    ['a greeting timeout', smtpError({ code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' }), true],
    ['a DNS failure', smtpError({ code: 'EDNS', originalCode: 'ENOTFOUND' }), true],
    ['the overall deadline', smtpError({ code: 'EABORT' }), true],
    ['an untrusted certificate', smtpError({ code: 'ESOCKET', originalCode: 'SELF_SIGNED_CERT_IN_CHAIN' }), false],
    ['a certificate for another host', smtpError({ code: 'ESOCKET', originalCode: 'ERR_TLS_CERT_ALTNAME_INVALID' }), false],
    ['no STARTTLS where required', smtpError({ code: 'ETLS' }), false],
    ['credentials missing', smtpError({ code: 'ENOAUTH' }), false],
    ['a bad configuration', smtpError({ code: 'ECONFIG' }), false],
  ])('%s → retryable %s', (_case, error, retryable) => {
    expect(classifySmtpError(error).retryable).toBe(retryable);
  });
});
