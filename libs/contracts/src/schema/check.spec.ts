import { Type } from '@sinclair/typebox';
import { checkerOf } from './check';
import { Count, Flag, OneOf, Struct, Text, Timestamp, Variants } from './kinds';

const Shape = Struct({
  id: Text(),
  shape: Variants('kind', [
    Struct({ kind: Type.Literal('circle'), radius: Count() }),
    Struct({ kind: Type.Literal('square'), side: Count(), filled: Flag() }),
    Struct({ kind: Type.Literal('dot') }),
  ]),
  colour: Type.Optional(OneOf(['red', 'blue'])),
  at: Timestamp(),
});

describe('checkerOf', () => {
  const check = checkerOf(Shape);
  const valid = { id: 's-1', shape: { kind: 'square', side: 2, filled: true }, at: '2030-01-01T00:00:00Z' };

  it('passes a valid message as it is, extra fields included', () => {
    const message = { ...valid, note: 'kept' };
    expect(check(message)).toEqual({ ok: true, value: message });
  });

  it("reports a variant's own problems under the union's path", () => {
    expect(check({ ...valid, shape: { kind: 'square', side: -1 } })).toEqual({
      ok: false,
      problems: ['shape.side: must be an integer >= 0', 'shape.filled: must be true or false'],
    });
  });

  it('names the discriminator when it is none of the variants', () => {
    expect(check({ ...valid, shape: { kind: 'hexagon' } })).toEqual({ ok: false, problems: ["shape.kind: must be one of 'circle', 'square', 'dot'"] });
  });

  it('lists problems in declaration order, one per field', () => {
    expect(check({ at: 'never', colour: 'green', shape: 7 })).toEqual({
      ok: false,
      problems: ['id: must be a non-empty string', 'shape: must be an object', "colour: must be one of 'red', 'blue'", 'at: must be an ISO timestamp'],
    });
  });

  it('adds what a refinement finds, and fails on it alone', () => {
    const refined = checkerOf(Shape, (message) => (message['id'] === 'taken' ? ['id: is taken'] : []));
    expect(refined({ ...valid, id: 'taken' })).toEqual({ ok: false, problems: ['id: is taken'] });
  });

  it('returns a copy without unknown fields when asked to', () => {
    const dropping = checkerOf(Struct({ id: Text(), inner: Struct({ a: Count() }) }), undefined, { dropUnknownFields: true });
    const message = { id: 'x', inner: { a: 1, b: 2 }, extra: true };
    expect(dropping(message)).toEqual({ ok: true, value: { id: 'x', inner: { a: 1 } } });
    expect(message.extra).toBe(true);
  });

  it('refuses what is not an object at all', () => {
    expect(check([valid])).toEqual({ ok: false, problems: ['message: must be an object'] });
  });
});
