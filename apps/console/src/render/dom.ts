import { flatten, type Child, type VNode } from './vnode.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Builds DOM nodes from a tree: text through text nodes, attributes through setAttribute, handlers through addEventListener. */
export function toDom(node: VNode, document: Document): Node {
  if (node.kind === 'text') return document.createTextNode(node.text);
  const element = node.svg ? document.createElementNS(SVG_NS, node.tag) : document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.attrs)) element.setAttribute(name, value);
  for (const [event, handler] of Object.entries(node.on)) element.addEventListener(event, handler);
  for (const child of node.children) element.appendChild(toDom(child, document));
  return element;
}

/** Replaces what `container` shows. */
export function render(container: Element, ...children: Child[]): void {
  const document = container.ownerDocument;
  container.replaceChildren(...flatten(children).map((node) => toDom(node, document)));
}
