import { type X2jOptions } from 'fast-xml-parser';

/** Thrown while decoding text; the message names the reference only, never the surrounding text. */
export class XmlEntityError extends Error {}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The five predefined XML entities and numeric character references, decoded in one pass so that
 * `&amp;#65;` stays `&#65;`. Any other reference is an error: a document cannot declare entities here,
 * because DOCTYPE is refused before parsing.
 */
export function decodeXmlText(text: string): string {
  return text.replace(/&([^;&\s]{0,32});/g, (_reference, name: string) => {
    const predefined = PREDEFINED[name];
    if (predefined !== undefined) return predefined;
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|(\d{1,7}))$/.exec(name);
    if (numeric) {
      const codePoint = numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2]);
      if (isXmlCharacter(codePoint)) return String.fromCodePoint(codePoint);
    }
    throw new XmlEntityError(`unknown or invalid character reference '&${name.slice(0, 12)};'`);
  });
}

function isXmlCharacter(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
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
