// Byte arrays joined end to end: protocol buffers read in pieces (the embedded socket's exchanges, a
// WebSocket's frames) and written from parts (a CAR file, a frame's header and body).

/** The parts, one after another, in one new array (a list, not arguments: a stream may hold many chunks). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
