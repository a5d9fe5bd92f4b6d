const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeJson(payload: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(payload));
}

/** The parsed JSON, or an error describing why the bytes are not JSON. */
export function decodeJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string; text: string } {
  let text = '';
  try {
    text = decoder.decode(data);
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error), text };
  }
}
