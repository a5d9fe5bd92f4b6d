import type { VElement, VNode } from '../render/vnode.js';
import { signInView } from './sign-in-page.js';

function elements(node: VNode): VElement[] {
  return node.kind === 'text' ? [] : [node, ...node.children.flatMap(elements)];
}

function textOf(node: VNode): string {
  return node.kind === 'text' ? node.text : node.children.map(textOf).join('');
}

const controls = (view: VElement) => elements(view).filter((element) => element.tag === 'input' || element.tag === 'button');
const onSignIn = async () => null;

describe('signInView', () => {
  it('is a working form where the page can sign', () => {
    const view = signInView({ onSignIn });
    expect(controls(view).map((control) => control.attrs['disabled'])).toEqual([undefined, undefined, undefined, undefined]);
    expect(elements(view).find((element) => element.attrs['id'] === 'sign-in')?.on['submit']).toBeDefined();
    expect(elements(view).some((element) => element.attrs['id'] === 'insecure-context')).toBe(false);
  });

  it('explains why it cannot sign, as text, and disables the form when the page is not a secure context', () => {
    const explanation = ['It needs <b>HTTPS</b>.', 'Or localhost.'];
    const view = signInView({ onSignIn, cannotSign: explanation });
    const notice = elements(view).find((element) => element.attrs['id'] === 'insecure-context');
    expect(notice?.attrs['role']).toBe('alert');
    expect(notice?.children.map(textOf)).toEqual(explanation);
    expect(notice?.children.flatMap((paragraph) => elements(paragraph).slice(1))).toEqual([]);
    expect(controls(view).map((control) => [control.tag, control.attrs['disabled']])).toEqual([
      ['input', ''],
      ['input', ''],
      ['input', ''],
      ['button', ''],
    ]);
    expect(elements(view).find((element) => element.attrs['id'] === 'sign-in')?.on['submit']).toBeUndefined();
  });

  it('shows again the key id and region of a failed attempt, never its secret (issue 20: the key id was cleared)', () => {
    const view = signInView({ onSignIn, problem: 'the request signature does not match', accessKeyId: 'SVCKEY123', region: 'eu-west-1' });
    const byName = (name: string) => controls(view).find((control) => control.attrs['name'] === name)?.attrs['value'];
    expect([byName('accessKeyId'), byName('region'), byName('secretKey')]).toEqual(['SVCKEY123', 'eu-west-1', undefined]);
  });
});
