import type { SigningScheme } from './signing-scheme';
import { credentialScope, type SigningScope } from './signature';

export interface ParsedAuthorization {
  accessKeyId: string;
  scope: SigningScope;
  signedHeaders: string[];
  signature: string;
}

export type ParseAuthorizationResult = { ok: true; value: ParsedAuthorization } | { ok: false; reason: string };

const SCOPE_DATE = /^\d{8}$/;
const HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
const SIGNATURE = /^[0-9a-f]{64}$/;
const NO_WHITESPACE = /^\S+$/;

export function formatAuthorization(
  scheme: SigningScheme,
  accessKeyId: string,
  scope: SigningScope,
  signedHeaders: readonly string[],
  signature: string,
): string {
  return (
    `${scheme.algorithm} Credential=${accessKeyId}/${credentialScope(scheme, scope)}, ` +
    `SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`
  );
}

/**
 * Parses `<algorithm> Credential=<key>/<yyyymmdd>/<region>/<service>/<terminator>, SignedHeaders=a;b, Signature=<hex>`.
 * Reasons name the part that is wrong but never repeat the signature.
 */
export function parseAuthorization(scheme: SigningScheme, header: string | undefined): ParseAuthorizationResult {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'the Authorization header is missing' };
  const trimmed = header.trim();
  const prefix = `${scheme.algorithm} `;
  if (!trimmed.startsWith(prefix)) return { ok: false, reason: `the Authorization header must start with ${scheme.algorithm}` };

  const components = parseComponents(trimmed.slice(prefix.length));
  if (!components.ok) return components;
  const { Credential: credential, SignedHeaders: signedHeadersText, Signature: signature } = components.value;

  const credentialParts = credential.split('/');
  if (credentialParts.length !== 5) {
    return { ok: false, reason: `Credential must be <access key>/<yyyymmdd>/<region>/<service>/${scheme.terminator}` };
  }
  const [accessKeyId, date, region, service, terminator] = credentialParts as [string, string, string, string, string];
  if (!NO_WHITESPACE.test(accessKeyId)) return { ok: false, reason: 'Credential has an empty or invalid access key' };
  if (!SCOPE_DATE.test(date)) return { ok: false, reason: 'the Credential scope date must be yyyymmdd' };
  if (!NO_WHITESPACE.test(region)) return { ok: false, reason: 'the Credential scope has an empty or invalid region' };
  if (!NO_WHITESPACE.test(service)) return { ok: false, reason: 'the Credential scope has an empty or invalid service' };
  if (terminator !== scheme.terminator) return { ok: false, reason: `the Credential scope must end with ${scheme.terminator}` };

  const signedHeaders = signedHeadersText.split(';');
  if (signedHeaders.some((name) => !HEADER_NAME.test(name))) {
    return { ok: false, reason: 'SignedHeaders must be a semicolon-separated list of lower-case header names' };
  }
  if (new Set(signedHeaders).size !== signedHeaders.length) return { ok: false, reason: 'SignedHeaders lists a header twice' };
  if (!SIGNATURE.test(signature)) return { ok: false, reason: 'Signature must be 64 lower-case hex digits' };

  return { ok: true, value: { accessKeyId, scope: { date, region, service }, signedHeaders, signature } };
}

type ComponentName = 'Credential' | 'SignedHeaders' | 'Signature';
const COMPONENT_NAMES: readonly ComponentName[] = ['Credential', 'SignedHeaders', 'Signature'];

function isComponentName(name: string): name is ComponentName {
  return (COMPONENT_NAMES as readonly string[]).includes(name);
}

function parseComponents(text: string): { ok: true; value: Record<ComponentName, string> } | { ok: false; reason: string } {
  const found: Partial<Record<ComponentName, string>> = {};
  for (const part of text.split(',')) {
    const component = part.trim();
    const equals = component.indexOf('=');
    const name = equals < 0 ? component : component.slice(0, equals);
    if (!isComponentName(name)) {
      return { ok: false, reason: 'the Authorization header may only hold Credential, SignedHeaders and Signature' };
    }
    if (found[name] !== undefined) return { ok: false, reason: `the Authorization header has ${name} twice` };
    const value = equals < 0 ? '' : component.slice(equals + 1);
    if (value === '') return { ok: false, reason: `${name} is empty` };
    found[name] = value;
  }
  const missing = COMPONENT_NAMES.find((name) => found[name] === undefined);
  if (missing) return { ok: false, reason: `the Authorization header has no ${missing}` };
  return { ok: true, value: found as Record<ComponentName, string> };
}
