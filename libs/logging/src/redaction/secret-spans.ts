import { adoSecretSpans } from './ado-secrets';
import { isSecretName } from './secret-names';
import { keyValueEnd, quotedValueEnd } from './quoted-value';
import { mergeSpans, type Span } from './span';
import { urlCredentialSpan } from './url-credentials';

/**
 * Where a secret may start, leftmost first: a URL (`scheme://`, also inside `jdbc:redshift://`), a
 * `key=value` pair (ADO.NET, conninfo, URL query, JDBC, AWS credential strings), a JSON or JavaScript member
 * (`"password": "…"`, `token: '…'`), or a keyword before an SQL literal (`SECRET_ACCESS_KEY '…'`).
 */
const CANDIDATE = /([a-z][a-z0-9+.-]*):\/\/|([a-z0-9_.-]+)\s*=|(["']?)([a-z_][a-z0-9_.-]*)\3\s*:\s*(?=["'])|\b([a-z_]+)\s+(?=')/gi;

/** A text that starts as a URL is no ADO.NET string (whose reading would take `?password` for a key). */
const URL_START = /^\s*[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The ranges of `text` that hold secrets, in every grammar the engines accept and in free text that quotes
 * them (driver errors, log messages). When the text can be read in more than one way, the ranges of every
 * reading are kept: hiding too much is the safe error.
 */
export function secretSpans(text: string): Span[] {
  const wholeAdo = URL_START.test(text) ? [] : adoSecretSpans(text);
  // Where the text reads as ADO.NET, its secret values end where SqlClient ends them: a scan's reading of
  // the same value (which also takes `\"` for an escape) would hide the pairs after it.
  const scanned = scannedSpans(text).filter((span) => !wholeAdo.some((ado) => span.start === ado.start));
  return mergeSpans([...scanned, ...wholeAdo]);
}

function scannedSpans(text: string): Span[] {
  const spans: Span[] = [];
  const candidate = new RegExp(CANDIDATE.source, 'gi');
  let match: RegExpExecArray | null;
  while ((match = candidate.exec(text)) !== null) {
    const after = match.index + match[0].length;
    const [, scheme, pairKey, , memberName, keyword] = match;
    let found: { span?: Span; resume: number } = { resume: after };
    if (scheme !== undefined) found = urlCredentialSpan(text, scheme, after);
    else if (pairKey !== undefined && isSecretName(pairKey)) found = pairValue(text, match.index, after);
    else if ((memberName ?? keyword) !== undefined && isSecretName(memberName ?? keyword ?? '')) found = quotedContent(text, after);
    if (found.span) spans.push(found.span);
    candidate.lastIndex = found.resume;
  }
  return spans;
}

function pairValue(text: string, keyStart: number, valueStart: number): { span: Span; resume: number } {
  const inUrlQuery = keyStart > 0 && '?&'.includes(text[keyStart - 1] ?? '');
  const end = keyValueEnd(text, valueStart, inUrlQuery);
  return { span: { start: valueStart, end }, resume: end };
}

/** The inside of the quoted value opening at `open`, its quotes kept so the text keeps its shape. */
function quotedContent(text: string, open: number): { span: Span; resume: number } {
  const end = quotedValueEnd(text, open);
  const closed = end - 1 > open && text[end - 1] === text[open];
  return { span: { start: open + 1, end: closed ? end - 1 : end }, resume: end };
}
