import { signWebhookBody, verifyWebhookSignature } from './webhook-signature';

const SECRET = 'whsec_test_secret';
const BODY = '{"deliveryId":"d-1"}';
const T = 1_700_000_000;
// printf '%s' '1700000000.{"deliveryId":"d-1"}' | openssl dgst -sha256 -hmac 'whsec_test_secret'
const KNOWN_HMAC = '7ad5dbe18da8773486a524a4b911dbe4f19f322b1430c5b8cf2e8ebf1d11c8bd';

describe('signWebhookBody', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (an independent openssl vector)', () => {
    expect(signWebhookBody(SECRET, BODY, T)).toBe(`t=${T},v1=${KNOWN_HMAC}`);
  });
});

describe('verifyWebhookSignature', () => {
  const header = `t=${T},v1=${KNOWN_HMAC}`;

  it.each([
    ['the signed body at the signing time', header, BODY, T, true],
    ['within the tolerance', header, BODY, T + 300, true],
    ['a tampered body', header, BODY.replace('d-1', 'd-2'), T, false],
    ['an old timestamp', header, BODY, T + 301, false],
    ['a timestamp from the future', header, BODY, T - 301, false],
    ['a timestamp changed to a fresh one', `t=${T + 10},v1=${KNOWN_HMAC}`, BODY, T + 10, false],
    ['another secret', signWebhookBody('other-secret', BODY, T), BODY, T, false],
    ['a rotation list where the second v1 matches', `t=${T},v1=${'0'.repeat(64)},v1=${KNOWN_HMAC}`, BODY, T, true],
    ['no v1', `t=${T}`, BODY, T, false],
    ['no timestamp', `v1=${KNOWN_HMAC}`, BODY, T, false],
    ['two timestamps', `t=${T},t=${T},v1=${KNOWN_HMAC}`, BODY, T, false],
    ['a short signature', `t=${T},v1=${KNOWN_HMAC.slice(2)}`, BODY, T, false],
    ['an upper-case signature', `t=${T},v1=${KNOWN_HMAC.toUpperCase()}`, BODY, T, false],
    ['an empty header', '', BODY, T, false],
  ])('%s → %s', (_case, signature, body, now, valid) => {
    expect(verifyWebhookSignature(SECRET, signature, body, now)).toBe(valid);
  });

  it('takes a tolerance of the receiver', () => {
    expect(verifyWebhookSignature(SECRET, header, BODY, T + 30, 10)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, BODY, T + 10, 10)).toBe(true);
  });
});
