import { createTransport } from 'nodemailer';
import { AlertDeliveryError } from './alert-delivery-error';
import { errorFields } from './error-fields';
import type { AlertNotice } from './alert-notice';
import type { EmailTarget } from './alert-target';
import { emailMessage } from './email-message';
import { redactSecrets } from './redaction';
import { classifySmtpError } from './smtp-error-classification';
import { parseSmtpUrl, type SmtpConnectionSettings } from './smtp-transport-options';

export interface EmailSendOptions extends SmtpConnectionSettings {
  now: () => Date;
}

/**
 * Sends the notice as one plain-text e-mail over a connection of its own (opened, used, closed). The whole exchange is
 * also bounded: each wait (connect, greeting, each reply) by timeoutMs, all of it by three times that.
 */
export async function sendEmail(target: EmailTarget, notice: AlertNotice, options: EmailSendOptions): Promise<void> {
  const parsed = parseSmtpUrl(target.smtpUrl, options);
  if ('invalid' in parsed) throw new AlertDeliveryError(`e-mail: ${parsed.invalid}`, false);
  if (target.to.length === 0) throw new AlertDeliveryError('e-mail: no recipients', false);
  const message = emailMessage(notice);
  const transport = createTransport(parsed.options);
  try {
    const info = await transport.sendMail({
      from: target.from,
      to: target.to,
      subject: message.subject,
      text: message.text,
      messageId: message.messageId,
      headers: message.headers,
      date: options.now(),
      signal: AbortSignal.timeout(options.timeoutMs * 3),
    });
    const refused = info.rejected;
    if (refused.length > 0) {
      // Some recipients have it: a retry would send it to them again. Reported so the wrong address is seen and fixed.
      const refusals = (info.rejectedErrors ?? []).map((error) => error.response ?? error.message).join('; ');
      const text = `e-mail via ${parsed.shownUrl}: delivered to ${info.accepted.length} of ${target.to.length} recipients; refused ${refused.join(', ')}${refusals === '' ? '' : ` (${refusals})`}`;
      throw new AlertDeliveryError(redactSecrets(text, parsed.secrets), false);
    }
  } catch (error) {
    if (error instanceof AlertDeliveryError) throw error;
    const failure = classifySmtpError(error);
    const reason = errorFields(error).message;
    throw new AlertDeliveryError(redactSecrets(`e-mail via ${parsed.shownUrl}: ${failure.detail}: ${reason}`, parsed.secrets), failure.retryable);
  } finally {
    transport.close();
  }
}
