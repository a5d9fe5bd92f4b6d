/**
 * The console's only way to describe markup: elements, attributes and text nodes, never HTML text. Data is
 * always a text child, so a name like `<img src=x onerror=alert(1)>` can only ever be shown, not parsed.
 * Pure (no DOM), so views and the chart are unit-tested in Node; dom.ts turns a tree into elements.
 */
export type AttrValue = string | number | boolean | null | undefined;
export type Handler = (event: Event) => void;

export interface VElement {
  kind: 'element';
  tag: string;
  svg: boolean;
  attrs: Record<string, string>;
  on: Record<string, Handler>;
  children: VNode[];
}

export interface VText {
  kind: 'text';
  text: string;
}

export type VNode = VElement | VText;
export type Child = VNode | string | number | null | undefined | false | readonly Child[];

export interface Props {
  attrs?: Record<string, AttrValue>;
  on?: Record<string, Handler>;
}

const ATTRIBUTE_NAME = /^[a-zA-Z][a-zA-Z0-9-:]*$/;
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'xlink:href', 'formaction']);
/** Links stay on the page (hash routes) or on this origin; no javascript: or other schemes. */
const SAFE_URL = /^(#|\/(?!\/)|\.\/)/;

/** `tag` may carry an id and classes: `h('td.num', ...)`, `h('form#sign-in', ...)`. Attribute values false/null/undefined leave the attribute out; true sets it empty. */
export function h(tag: string, props: Props | null = null, ...children: Child[]): VElement {
  return element(tag, false, props, children);
}

/** An SVG element (created in the SVG namespace). */
export function s(tag: string, props: Props | null = null, ...children: Child[]): VElement {
  return element(tag, true, props, children);
}

export function text(value: string): VText {
  return { kind: 'text', text: value };
}

function element(tagWithClasses: string, svg: boolean, props: Props | null, children: Child[]): VElement {
  const tag = /^[a-zA-Z][a-zA-Z0-9-]*/.exec(tagWithClasses)?.[0] ?? '';
  const attrs: Record<string, string> = {};
  const classes: string[] = [];
  for (const [, marker, name] of tagWithClasses.slice(tag.length).matchAll(/([.#])([^.#]+)/g)) {
    if (marker === '#') attrs['id'] = name ?? '';
    else classes.push(name ?? '');
  }
  if (classes.length) attrs['class'] = classes.join(' ');
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (!ATTRIBUTE_NAME.test(name) || /^on/i.test(name)) throw new Error(`attribute ${name} is not allowed: handlers go in 'on'`);
    if (value === false || value === null || value === undefined) continue;
    const rendered = value === true ? '' : String(value);
    if (URL_ATTRIBUTES.has(name.toLowerCase()) && !SAFE_URL.test(rendered)) throw new Error(`unsafe ${name}: ${rendered}`);
    attrs[name] = name === 'class' && attrs['class'] ? `${attrs['class']} ${rendered}` : rendered;
  }
  return { kind: 'element', tag, svg, attrs, on: { ...(props?.on ?? {}) }, children: flatten(children) };
}

/** The nodes a list of children stands for: nested lists flattened, strings as text, empty values dropped. */
export function flatten(children: readonly Child[]): VNode[] {
  const nodes: VNode[] = [];
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) nodes.push(...flatten(child as readonly Child[]));
    else if (typeof child === 'string' || typeof child === 'number') nodes.push(text(String(child)));
    else nodes.push(child as VNode);
  }
  return nodes;
}

/** The text a tree shows, for tests and accessible labels. */
export function textOf(node: VNode): string {
  return node.kind === 'text' ? node.text : node.children.map(textOf).join('');
}

/** Every element of a tree (depth first) that matches `test`. */
export function findAll(node: VNode, test: (element: VElement) => boolean): VElement[] {
  if (node.kind === 'text') return [];
  return [...(test(node) ? [node] : []), ...node.children.flatMap((child) => findAll(child, test))];
}
