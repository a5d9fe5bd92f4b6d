import { type X2jOptions } from 'fast-xml-parser';

/** Thrown while decoding text. Its message never quotes the reference: it may be a piece of a password. */
export class XmlEntityError extends Error {
  constructor() {
    super(BAD_REFERENCE);
  }
}

export const BAD_REFERENCE =
  'has an unknown character reference; only &amp; &lt; &gt; &quot; &apos; and numeric references such as &#65; or &#x41; are allowed';

const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

/**
 * The five predefined XML entities and numeric character references, decoded in one pass so that
 * `&amp;#65;` stays `&#65;`. Any other reference is an error: a document cannot declare entities here,
 * because DOCTYPE is refused before parsing. A numeric reference to any code point is decoded, even one XML
 * cannot carry (`&#0;`): the API model then refuses it with the field's name, like the same character sent raw.
 */
export function decodeXmlText(text: string): string {
  return text.replace(/&([^;&\s]{0,32});/g, (_reference, name: string) => {
    const predefined = PREDEFINED.get(name);
    if (predefined !== undefined) return predefined;
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|(\d{1,7}))$/.exec(name);
    const codePoint = numeric ? (numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2])) : -1;
    if (codePoint < 0 || codePoint > 0x10ffff) throw new XmlEntityError();
    // A surrogate code point becomes a lone surrogate, which the model refuses like any other unpaired one.
    return String.fromCodePoint(codePoint);
  });
}

type EntityDecoder = NonNullable<X2jOptions['entityDecoder']>;

/** The decoder fast-xml-parser calls for every text value. */
export function xmlEntityDecoder(): EntityDecoder {
  const decoder: EntityDecoder & { setXmlVersion: (version: number) => void } = {
    decode: decodeXmlText,
    setExternalEntities: () => undefined,
    addInputEntities: () => undefined,
    reset: () => undefined,
    setXmlVersion: () => undefined,
  };
  return decoder;
}
