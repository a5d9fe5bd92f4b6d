import type { KeyLink } from './key-chain';
import { judgeChange, type AccessKeyChange, type KeyActor } from './key-change';

const NOW = new Date('2026-11-28T12:00:00Z');
const SOON = new Date('2026-11-28T13:00:00Z');
const LATER = new Date('2026-12-31T00:00:00Z');
const operator: KeyActor = { kind: 'operator' };
const by = (accessKeyId: string): KeyActor => ({ kind: 'key', accessKeyId });

function link(accessKeyId: string, rest: Partial<KeyLink> = {}): KeyLink {
  return { accessKeyId, createdBy: null, replicationScope: 'Own', disabled: false, disabledBy: null, expiresAt: null, ...rest };
}

/**
 * ROOT (All) created ADMIN (All) and TEAM (Own); TEAM created READER; TEMP (Own) expires soon; OFF (Own) was
 * disabled by ROOT; OLDOFF was disabled before the disabler was recorded.
 */
const KEYS = new Map(
  [
    link('ROOT', { replicationScope: 'All' }),
    link('ADMIN', { replicationScope: 'All', createdBy: 'ROOT' }),
    link('TEAM', { createdBy: 'ROOT' }),
    link('READER', { createdBy: 'TEAM' }),
    link('TEMP', { expiresAt: SOON }),
    link('TEMPCHILD', { createdBy: 'TEMP', expiresAt: SOON }),
    link('OFF', { createdBy: 'TEAM', disabled: true, disabledBy: { accessKeyId: 'ROOT', width: 'All' } }),
    link('OLDOFF', { createdBy: 'TEAM', disabled: true }),
  ].map((key) => [key.accessKeyId, key]),
);

const judge = (accessKeyId: string, change: AccessKeyChange, actor: KeyActor, keys: ReadonlyMap<string, KeyLink> = KEYS) => judgeChange(keys, accessKeyId, change, actor, NOW);
const enable: AccessKeyChange = { kind: 'status', disabled: false };
const disable: AccessKeyChange = { kind: 'status', disabled: true };

describe('judgeChange (issue 36)', () => {
  it('answers missing for a key that does not exist', () => {
    expect(judge('NOPE', disable, by('ROOT'))).toEqual({ verdict: 'missing' });
  });

  it('refuses an actor that no longer signs', () => {
    expect(judge('TEAM', disable, by('READER'), new Map([...KEYS, ['TEAM', { ...link('TEAM', { createdBy: 'ROOT' }), disabled: true }]]))).toEqual({
      verdict: 'refused',
      refusal: { rule: 'actorStopped' },
    });
  });

  describe('the last usable All key', () => {
    it.each([
      ['disabling ROOT takes ADMIN with it', 'ROOT', disable, { rule: 'lastAllKey', withCreated: true }],
      ['deleting ROOT takes ADMIN with it', 'ROOT', { kind: 'delete' }, { rule: 'lastAllKey', withCreated: true }],
      ['an expiry for ROOT takes ADMIN with it', 'ROOT', { kind: 'expiry', expiresAt: LATER }, { rule: 'lastAllKey', withCreated: true }],
    ] as const)('%s: refused', (_case, target, change, refusal) => {
      expect(judge(target, change, by('ADMIN'))).toEqual({ verdict: 'refused', refusal });
    });

    it('lets ADMIN go while ROOT stays, and refuses ROOT alone once ADMIN is gone', () => {
      expect(judge('ADMIN', disable, by('ROOT'))).toMatchObject({ verdict: 'write' });
      const withoutAdmin = new Map([...KEYS].filter(([id]) => id !== 'ADMIN'));
      expect(judge('ROOT', disable, by('ROOT'), withoutAdmin)).toEqual({ verdict: 'refused', refusal: { rule: 'lastAllKey', withCreated: false } });
      expect(judge('ROOT', { kind: 'expiry', expiresAt: null }, by('ROOT'), withoutAdmin)).toMatchObject({ verdict: 'write' });
    });

    it('holds no operator to it', () => {
      expect(judge('ROOT', disable, operator)).toMatchObject({ verdict: 'write' });
    });
  });

  describe('enabling a disabled key', () => {
    it.each([
      ['an Own key, a disable by an All key', 'OFF', by('TEAM'), { verdict: 'refused', refusal: { rule: 'disabledByWider', width: 'All' } }],
      ['an Own key, a disable recorded before widths were', 'OLDOFF', by('TEAM'), { verdict: 'refused', refusal: { rule: 'disabledByWider', width: 'All' } }],
      ['an All key, a disable by an All key', 'OFF', by('ADMIN'), { verdict: 'write', write: { kind: 'status', accessKeyId: 'OFF', disabled: false, disabledBy: null } }],
      ['an operator, a disable by an All key', 'OFF', operator, { verdict: 'write', write: { kind: 'status', accessKeyId: 'OFF', disabled: false, disabledBy: null } }],
    ] as const)('%s: as judged', (_case, target, actor, verdict) => {
      expect(judge(target, enable, actor)).toEqual(verdict);
    });

    it('refuses an All key enabling what an operator disabled', () => {
      const keys = new Map([...KEYS, ['OFF', { ...link('OFF', { createdBy: 'TEAM' }), disabled: true, disabledBy: { accessKeyId: null, width: 'Operator' as const } }]]);
      expect(judge('OFF', enable, by('ADMIN'), keys)).toEqual({ verdict: 'refused', refusal: { rule: 'disabledByWider', width: 'Operator' } });
    });
  });

  describe('disabling', () => {
    it('records the actor and its width', () => {
      expect(judge('READER', disable, by('TEAM'))).toEqual({
        verdict: 'write',
        write: { kind: 'status', accessKeyId: 'READER', disabled: true, disabledBy: { accessKeyId: 'TEAM', width: 'Own' } },
      });
      expect(judge('READER', disable, operator)).toMatchObject({ write: { disabledBy: { accessKeyId: null, width: 'Operator' } } });
    });

    it('keeps a wider earlier disable when a narrower key disables again, and lets a wider one take over', () => {
      expect(judge('OFF', disable, by('TEAM'))).toMatchObject({ write: { disabled: true, disabledBy: { accessKeyId: 'ROOT', width: 'All' } } });
      expect(judge('OFF', disable, operator)).toMatchObject({ write: { disabled: true, disabledBy: { accessKeyId: null, width: 'Operator' } } });
    });
  });

  describe('expiry', () => {
    it.each([
      ['TEMP lengthening its own lifetime to never', 'TEMP', null, { rule: 'outlivesActor', actorExpiresAt: SOON, own: true }],
      ['TEMP lengthening its own lifetime', 'TEMP', LATER, { rule: 'outlivesActor', actorExpiresAt: SOON, own: true }],
      ["TEMP giving its key a later expiry", 'TEMPCHILD', LATER, { rule: 'outlivesActor', actorExpiresAt: SOON, own: false }],
    ] as const)('refuses %s', (_case, target, expiresAt, refusal) => {
      expect(judge(target, { kind: 'expiry', expiresAt }, by('TEMP'))).toEqual({ verdict: 'refused', refusal });
    });

    it('lets a key shorten its own lifetime, and a key that never expires give any', () => {
      const sooner = new Date('2026-11-28T12:30:00Z');
      expect(judge('TEMP', { kind: 'expiry', expiresAt: sooner }, by('TEMP'))).toEqual({ verdict: 'write', write: { kind: 'expiry', accessKeyId: 'TEMP', expiresAt: sooner } });
      expect(judge('TEMP', { kind: 'expiry', expiresAt: null }, by('ADMIN'))).toMatchObject({ verdict: 'write' });
    });

    it("refuses a key whose lifetime follows its creator's lengthening the creator's", () => {
      const keys = new Map([...KEYS, ['HEIR', link('HEIR', { createdBy: 'TEMP', replicationScope: 'All' })]]);
      expect(judge('TEMP', { kind: 'expiry', expiresAt: null }, by('HEIR'), keys)).toEqual({
        verdict: 'refused',
        refusal: { rule: 'outlivesActor', actorExpiresAt: SOON, own: false },
      });
    });
  });

  it('deletes the keys created under the target with it', () => {
    const verdict = judge('TEAM', { kind: 'delete' }, by('ADMIN'));
    expect(verdict.verdict === 'write' && verdict.write.kind === 'delete' && [...verdict.write.accessKeyIds].sort()).toEqual(['OFF', 'OLDOFF', 'READER', 'TEAM']);
  });
});
