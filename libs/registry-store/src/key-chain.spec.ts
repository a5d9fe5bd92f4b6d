import { MAX_CHAIN_LENGTH, atLeastAsWide, chainOf, keysUnder, signs, standingOf, type KeyLink } from './key-chain';

const NOW = new Date('2026-11-28T12:00:00Z');
const SOON = new Date('2026-11-28T13:00:00Z');
const LATER = new Date('2026-12-31T00:00:00Z');

function link(accessKeyId: string, rest: Partial<KeyLink> = {}): KeyLink {
  return { accessKeyId, createdBy: null, replicationScope: 'Own', disabled: false, disabledBy: null, expiresAt: null, ...rest };
}

function standing(accessKeyId: string, links: KeyLink[]) {
  const byId = new Map(links.map((one) => [one.accessKeyId, one]));
  return standingOf(chainOf(accessKeyId, (id) => byId.get(id)));
}

describe('key chains (issue 36)', () => {
  it.each([
    ['a key of its own', [link('A')], { disabled: false, expiresAt: null }],
    ['a key under usable creators', [link('A', { createdBy: 'B' }), link('B', { createdBy: 'C' }), link('C')], { disabled: false, expiresAt: null }],
    ['a disabled key', [link('A', { disabled: true })], { disabled: true, expiresAt: null }],
    ['a key whose creator is disabled', [link('A', { createdBy: 'B' }), link('B', { disabled: true })], { disabled: true, expiresAt: null }],
    ['a key whose creator two up is disabled', [link('A', { createdBy: 'B' }), link('B', { createdBy: 'C' }), link('C', { disabled: true })], { disabled: true, expiresAt: null }],
    ['a key whose creator was deleted', [link('A', { createdBy: 'GONE' })], { disabled: true, expiresAt: null }],
    ['a key in a loop of creators', [link('A', { createdBy: 'B' }), link('B', { createdBy: 'A' })], { disabled: true, expiresAt: null }],
    ['a key expiring later than its creator', [link('A', { createdBy: 'B', expiresAt: LATER }), link('B', { expiresAt: SOON })], { disabled: false, expiresAt: SOON }],
    ['a key without expiry under an expiring creator', [link('A', { createdBy: 'B' }), link('B', { createdBy: 'C' }), link('C', { expiresAt: SOON })], { disabled: false, expiresAt: SOON }],
    ['a key expiring before its creator', [link('A', { createdBy: 'B', expiresAt: SOON }), link('B', { expiresAt: LATER })], { disabled: false, expiresAt: SOON }],
  ])('judges %s', (_case, links, expected) => {
    expect(standing('A', links)).toEqual(expected);
  });

  it('trusts no chain longer than MAX_CHAIN_LENGTH', () => {
    const links = Array.from({ length: MAX_CHAIN_LENGTH + 1 }, (_, index) => link(`K${index}`, index === MAX_CHAIN_LENGTH ? {} : { createdBy: `K${index + 1}` }));
    expect(standing('K0', links).disabled).toBe(true);
    expect(standing('K1', links).disabled).toBe(false);
  });

  it('signs while neither disabled nor expired', () => {
    expect(signs({ disabled: false, expiresAt: null }, NOW)).toBe(true);
    expect(signs({ disabled: false, expiresAt: SOON }, NOW)).toBe(true);
    expect(signs({ disabled: false, expiresAt: NOW }, NOW)).toBe(false);
    expect(signs({ disabled: true, expiresAt: SOON }, NOW)).toBe(false);
  });

  it('finds every key created under a key, and no other', () => {
    const links = [link('A'), link('B', { createdBy: 'A' }), link('C', { createdBy: 'B' }), link('D', { createdBy: 'A' }), link('E'), link('F', { createdBy: 'E' })];
    expect([...keysUnder('A', links)].sort()).toEqual(['A', 'B', 'C', 'D']);
    expect([...keysUnder('C', links)]).toEqual(['C']);
  });

  it.each([
    ['Own', 'Own', true],
    ['Own', 'All', false],
    ['All', 'Own', true],
    ['All', 'Operator', false],
    ['Operator', 'All', true],
  ] as const)('weighs %s against a disable by %s: at least as wide = %s', (width, than, expected) => {
    expect(atLeastAsWide(width, than)).toBe(expected);
  });
});
