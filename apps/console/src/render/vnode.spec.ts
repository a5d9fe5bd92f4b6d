import { findAll, h, s, textOf } from './vnode.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

describe('vnode', () => {
  it('keeps data as text nodes, never as markup', () => {
    const node = h('td', null, HOSTILE, 42);
    expect(node.children).toEqual([
      { kind: 'text', text: HOSTILE },
      { kind: 'text', text: '42' },
    ]);
    expect(findAll(node, (element) => element.tag === 'img')).toEqual([]);
    expect(textOf(node)).toBe(`${HOSTILE}42`);
  });

  it('parses ids and classes from the tag and drops false attributes', () => {
    expect(h('input#name.wide.big', { attrs: { disabled: false, required: true, value: 3 } })).toMatchObject({
      tag: 'input',
      attrs: { id: 'name', class: 'wide big', required: '', value: '3' },
    });
    expect(h('form.danger-zone#delete-form').attrs).toEqual({ id: 'delete-form', class: 'danger-zone' });
  });

  it('refuses event-handler attributes: handlers are functions in `on`', () => {
    expect(() => h('img', { attrs: { onerror: 'alert(1)' } })).toThrow(/not allowed/);
    expect(() => h('div', { attrs: { OnClick: 'x' } })).toThrow(/not allowed/);
    expect(() => h('div', { attrs: { 'a b': 'x' } })).toThrow(/not allowed/);
  });

  it('refuses links that leave the page for another scheme', () => {
    expect(() => h('a', { attrs: { href: 'javascript:alert(1)' } })).toThrow(/unsafe href/);
    expect(() => h('a', { attrs: { href: '//evil.example/' } })).toThrow(/unsafe href/);
    expect(h('a', { attrs: { href: '#/replications/x' } }).attrs['href']).toBe('#/replications/x');
  });

  it('marks SVG elements for the SVG namespace and flattens nested children', () => {
    const node = s('svg', null, [s('g', null, [null, false, s('path')])]);
    expect(node.svg).toBe(true);
    expect(findAll(node, (element) => element.tag === 'path')).toHaveLength(1);
  });
});
