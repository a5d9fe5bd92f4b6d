import { FuzzGroup, RawValue, escapeXml, type FuzzNode } from './fuzz-tree';
import type { Random } from './random';

const GUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

/** Names that reach JavaScript's object machinery when a parser or validator is careless. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
  'toLocaleString',
];

/** Text where a field expects something else, and text at the edges of what text can be. */
const TEXTS: readonly string[] = [
  '',
  ' ',
  '   \t ',
  '\u00a0',
  ' 5 ',
  '0x10',
  '-0',
  '1e309',
  '9007199254740993',
  '1.5',
  '-1',
  '0',
  '+7',
  '２',
  'true',
  'TRUE',
  'yes',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '__proto__',
  'All',
  'all ',
  '[public].[orders]',
  '[public].[orders], [public].[orders]',
  '[public].[nope]',
  '[public]',
  '[a]]b].[c',
  'public.orders',
  "'; drop table x; --",
  '%00',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '&amp;',
  'a\u2028b',
  'a\u2029b',
  '\ufffe',
  '\uffff',
  '\u202egnp.exe',
  'e\u0301\u0301\u0301',
  '😀🏳️‍🌈',
  '\u{10ffff}',
  'a\u0000b',
  'a\u0085b',
  'a\u200bb',
  '\ufeffx',
  '12:00:00 AM',
  '13:00:00 PM',
  '2 DAYS',
  'AccessKey',
  'Type2',
  'us-east-1',
  'postgres://127.0.0.1:5432',
  GUID,
  `{${GUID}}`,
];

/** JSON text that JSON.stringify would never write: numbers past double precision, escapes of lone surrogates. */
const RAW_JSON: readonly string[] = [
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '9007199254740993',
  '1E2',
  '0.0000001',
  '"\\ud800"',
  '"\\udfff"',
  '"x\\ud83dy"',
  '"\\u0000"',
  '"\\ufffe"',
  '"\\u2028"',
  '"\\u202e"',
  GUID.toUpperCase(),
  `{${GUID}}`,
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
];

/** Element content an XML writer would not produce: CDATA, comments, references, markup where text belongs. */
const RAW_XML_CONTENT: readonly string[] = [
  '<![CDATA[5]]>',
  '<![CDATA[<x>&amp;]]>',
  '5<!-- a comment -->0',
  '<!---->',
  '&#xFFFE;',
  '&#xD800;',
  '&#x1F600;',
  '&#0;',
  '&#x110000;',
  '&#65;&#x42;',
  '&unknown;',
  '&amp;lt;',
  '<?pi inside?>5',
  '<Nested>5</Nested>',
  'text<Nested>5</Nested>',
  ' \n\t ',
];

export function randomGuidForm(random: Random, guid: string): FuzzNode {
  return random.pick<FuzzNode>([
    guid,
    guid.toUpperCase(),
    `{${guid}}`,
    ` ${guid} `,
    guid.replace(/-/g, ''),
    `urn:uuid:${guid}`,
    `${guid}x`,
    `{${guid}`,
    guid.replace(/[0-9]/, '９'),
    '00000000-0000-0000-0000-000000000000',
    RawValue.inside(guid.toUpperCase(), guid),
    RawValue.inside(`{${guid.toUpperCase()}}`, `{${guid}}`),
    RawValue.inside(`"${guid}"`, `<![CDATA[${guid}]]>`),
  ]);
}

/** Any value at all for a field that is not secret; `depth` bounds the groups and lists it builds. */
export function randomValue(random: Random, depth = 0): FuzzNode {
  const roll = random.int(100);
  if (roll < 40) return random.pick(TEXTS);
  if (roll < 46) return random.pick([0, -0, 1, -1, 7, 1.5, 2147483648, Number.MAX_SAFE_INTEGER, 1e21, -1e-7]);
  if (roll < 50) return random.pick([true, false, null]);
  if (roll < 58) return new RawValue(random.pick(RAW_JSON), (name) => `<${name}>${random.pick(RAW_XML_CONTENT)}</${name}>`);
  if (roll < 64) return RawValue.inside(`"${random.text(8)}"`, random.pick(RAW_XML_CONTENT));
  if (roll < 67) return random.pick(['x', '9', ' '.repeat(3), 'é']).repeat(random.pick([1000, 100_000]));
  if (roll < 70) return random.text(1 + random.int(40), 'abcXYZ019 .,;:[]{}()\'"\\/<>&%$#@!?~`^*+=|-_\u00e9\u4e2d\u0645');
  if (roll < 76 && depth < 2) return [randomValue(random, depth + 1), ...(random.chance(0.5) ? [randomValue(random, depth + 1)] : [])];
  if (roll < 80) return [];
  if (roll < 86 && depth < 2) return new FuzzGroup([[random.pick(['value', 'x', 'retentionDays', ...PROTOTYPE_NAMES]), randomValue(random, depth + 1)]]);
  if (roll < 88) return new FuzzGroup([]);
  return new RawValue(random.pick(RAW_JSON), (name) => `<${name} attribute="1">5</${name}>`);
}

/**
 * A value for a secret field (password, secret key, connection string, Url) with `marker` inside, in every shape
 * that has made a parser or validator quote it: references, bad escapes, markup, control characters, lists.
 */
export function randomSecret(random: Random, marker: string, valid: string): FuzzNode {
  const plain = (text: string) => RawValue.inside(JSON.stringify(text), escapeXml(text));
  return random.pick<FuzzNode>([
    valid,
    marker,
    ` ${marker} `,
    `${marker}\u0000`,
    `${marker}\u2028${marker}`,
    `${marker}\ud800`,
    `postgres://user:${marker}@127.0.0.1:1/db`,
    `postgres://user:${marker}@[::1`,
    `postgres://127.0.0.1:5432?password=${marker}`,
    `Server=h;Database=d;User Id=u;Password=${marker};`,
    `Password="${marker};x`,
    marker.repeat(10_000),
    `<${marker}>`,
    `${marker}]]>`,
    [marker],
    [marker, marker],
    new FuzzGroup([['value', marker]]),
    new FuzzGroup([['password', marker]]),
    RawValue.inside(JSON.stringify(`a<b>${marker}</b>c`), `a<b>${marker}</b>c`),
    RawValue.inside(JSON.stringify(`${marker}<c>`), `${marker.toLowerCase()}<c/>d`),
    RawValue.inside(JSON.stringify(`<${marker}>`), `<${marker.toLowerCase()}>1</${marker.toLowerCase()}>`),
    new RawValue(`"${marker}\\ud800${marker}"`, (name) => `<${name}>${marker}&#xD800;${marker}</${name}>`),
    new RawValue(`"pg://${marker}\\q${marker}"`, (name) => `<${name}>&${marker};</${name}>`),
    new RawValue(`"${marker}`, (name) => `<${name}>${marker}<${marker}</${name}>`),
    new RawValue(marker, (name) => `<${name}>${marker}</${name}${marker}>`),
    new RawValue(`${marker}"`, (name) => `<${name}>${marker}</Wrong>`),
    new RawValue(`"${marker}\u0001"`, (name) => `<${name}>${marker}&#1;</${name}>`),
    new RawValue(`"${marker}"${marker}`, (name) => `<${name}><![CDATA[${marker}]]></${name}>`),
    new RawValue(`"${marker}\\u0000"`, (name) => `<${name}>${marker}<!--${marker}-->${marker}</${name}>`),
    new RawValue(`["${marker}", ${marker}]`, (name) => `<${name} value="${marker}">${marker}</${name}>`),
    new RawValue(`{"${marker}": "${marker}"}`, (name) => `<${name}><${marker}>${marker}</${marker}></${name}>`),
    new RawValue(`1${marker}`, (name) => `<${name}>&#${marker};</${name}>`),
    new RawValue(`"${marker}\\`, (name) => `<${name}>${marker}&amp${marker}</${name}>`),
    new RawValue(`"\\u${marker}"`, (name) => `<${name}>&#x${marker};</${name}>`),
    plain(`${marker}${'é'.repeat(3)}`),
  ]);
}
