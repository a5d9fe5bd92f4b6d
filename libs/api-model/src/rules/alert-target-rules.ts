import { ALERT_KINDS } from '@svc/contracts';
import { type FieldRule, quoted, shapeProblem } from './field-rule';
import { textRule } from './text-rules';

const NAME_RULE = 'A target name is 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit';
export const alertTargetName: FieldRule = textRule({ check: (text) => (/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(text) ? null : NAME_RULE), rule: NAME_RULE });

const MAX_URL_LENGTH = 2048;

/** A URL of one of `schemes`, without user information where `noCredentials` (fetch refuses such a URL). Never quoted back. */
function secretUrl(schemes: readonly string[], what: string, options: { noCredentials: boolean }): FieldRule {
  const rule = `${what}: a URL of ${schemes.map((scheme) => `${scheme}://`).join(' or ')} with a host, at most ${MAX_URL_LENGTH} characters${options.noCredentials ? ', without user:password@' : ''}`;
  return textRule({
    secret: true,
    rule,
    check(text) {
      if (text.length > MAX_URL_LENGTH) return rule;
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return rule;
      }
      if (!schemes.includes(url.protocol.replace(/:$/, '')) || url.hostname === '') return rule;
      if (options.noCredentials && (url.username !== '' || url.password !== '')) return rule;
      return null;
    },
  });
}

export const webhookUrl = secretUrl(['https', 'http'], 'The receiver (http only to a loopback receiver of a development setup)', { noCredentials: true });
export const smtpUrl = secretUrl(['smtps', 'smtp'], 'The SMTP server, e.g. smtp://user:password@smtp.example.com:587 (STARTTLS) or smtps://…:465', { noCredentials: false });

const SIGNING_SECRET_RULE = 'A signing secret is 16-512 characters without spaces or control characters';
export const signingSecret: FieldRule = textRule({
  secret: true,
  check: (text) => (/^[^\s\p{Cc}]{16,512}$/u.test(text) ? null : SIGNING_SECRET_RULE),
  rule: SIGNING_SECRET_RULE,
});

/** https://docs.aws.amazon.com/sns/latest/api/API_CreateTopic.html: 1-256 letters, digits, `-` or `_`, `.fifo` for a FIFO topic. */
const TOPIC_ARN = /^arn:aws(?:-cn|-us-gov|-iso|-iso-b)?:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(?:\.fifo)?$/;
const TOPIC_ARN_RULE = 'An SNS topic ARN, arn:aws:sns:<region>:<12-digit account>:<topic name>';
export const topicArn: FieldRule = textRule({ check: (text) => (TOPIC_ARN.test(text) ? null : TOPIC_ARN_RULE), rule: TOPIC_ARN_RULE });

const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
const ADDRESS_RULE = 'An e-mail address (name@example.com), at most 254 characters';
const addressProblem = (text: string): string | null => (text.length <= 254 && ADDRESS.test(text) ? null : ADDRESS_RULE);
export const emailAddress: FieldRule = textRule({ check: addressProblem, rule: ADDRESS_RULE });

const MAX_RECIPIENTS = 20;

/** Text items separated by commas, or in JSON a list; each checked by `itemProblem`, at least one, at most `max`. */
function textList(doc: FieldRule['doc'], max: number, itemProblem: (item: string) => string | null, canonical: (item: string) => string = (item) => item): FieldRule {
  return {
    doc,
    coerce(raw) {
      const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? raw : undefined;
      if (items === undefined) return raw;
      return [...new Set(items.map((item) => canonical(item.trim())).filter((item) => item !== ''))];
    },
    problem(value) {
      if (!Array.isArray(value)) return shapeProblem(value) ?? `invalid value ${quoted(value)}. ${doc.rule}`;
      if (value.length === 0) return `must name at least one. ${doc.rule}`;
      if (value.length > max) return `must name at most ${max}. ${doc.rule}`;
      for (const [index, item] of value.entries()) {
        const problem = typeof item === 'string' ? itemProblem(item) : 'is not text';
        if (problem !== null) return `entry ${index + 1} (${quoted(item)}): ${problem}`;
      }
      return null;
    },
  };
}

export const recipients = textList(
  { type: 'list of e-mail addresses', rule: `E-mail addresses separated by commas (JSON may also give a list), at most ${MAX_RECIPIENTS}` },
  MAX_RECIPIENTS,
  addressProblem,
);

const byLowerKind = new Map<string, string>(ALERT_KINDS.map((kind) => [kind.toLowerCase(), kind]));
export const alertKinds = textList(
  { type: 'list of alert kinds', rule: `Alert kinds separated by commas (any case; JSON may also give a list): ${ALERT_KINDS.join(', ')}` },
  ALERT_KINDS.length,
  (item) => ((ALERT_KINDS as readonly string[]).includes(item) ? null : `is not an alert kind. Kinds: ${ALERT_KINDS.join(', ')}`),
  (item) => byLowerKind.get(item.toLowerCase()) ?? item,
);
