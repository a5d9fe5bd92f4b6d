import { isNatsOutage, subjectMatches } from './nats-outage';

describe('isNatsOutage', () => {
  it.each([
    ['DISCONNECT', true],
    ['CONNECTION_REFUSED', true],
    ['TIMEOUT', true],
    ['503', true],
    ['CONNECTION_CLOSED', false],
    ['MAX_PAYLOAD_EXCEEDED', false],
    ['BAD API', false],
  ])('code %s -> %s', (code, outage) => {
    expect(isNatsOutage(Object.assign(new Error(code), { code }))).toBe(outage);
  });

  it('is false for errors without a nats.js code', () => {
    expect(isNatsOutage(new Error('TIMEOUT'))).toBe(false);
    expect(isNatsOutage('TIMEOUT')).toBe(false);
  });
});

describe('subjectMatches', () => {
  it.each([
    ['svc.pipeline.v1.>', 'svc.pipeline.v1.extract.requested', true],
    ['svc.pipeline.v1.>', 'svc.pipeline.v1', false],
    ['svc.rows.*', 'svc.rows.abc', true],
    ['svc.rows.*', 'svc.rows.abc.def', false],
    ['svc.a.b', 'svc.a.b', true],
    ['svc.a.b', 'svc.a.c', false],
  ])('%s takes %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});
