// A WebSocket client opened by hand over TCP (RFC 6455 handshake), so that a test decides when its frames
// are read: one that stops reading is a subscriber too slow for the stream. Reading later gives every
// frame the server sent (server frames are unmasked), up to its close frame or the end of the connection.
import { concatBytes } from "../../shared/bytes.ts";

export interface RawFrame {
  opcode: number;
  payload: Uint8Array;
}

export interface RawWebSocket {
  /** Reads every frame until the server's close frame (answered) or the end of the connection. */
  readAll(): Promise<{ frames: RawFrame[]; bytes: number }>;
  close(): void;
}

export async function openRawWebSocket(url: string): Promise<RawWebSocket> {
  const target = new URL(url);
  const conn = await Deno.connect({ hostname: target.hostname === "localhost" ? "127.0.0.1" : target.hostname, port: Number(target.port) });
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  await conn.write(new TextEncoder().encode(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  ));
  // the answer's head, and whatever frames came with it
  let pending: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  for (;;) {
    const chunk = new Uint8Array(4096);
    const n = await conn.read(chunk);
    if (n === null) throw new Error("the server closed the connection during the handshake");
    pending = concatBytes([pending, chunk.subarray(0, n)]);
    const end = findHeadEnd(pending);
    if (end < 0) continue;
    const head = new TextDecoder().decode(pending.subarray(0, end));
    if (!head.startsWith("HTTP/1.1 101")) throw new Error(`no upgrade: ${head.split("\r\n")[0]}`);
    pending = pending.slice(end + 4);
    break;
  }
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      conn.close();
    } catch { /* closed already */ }
  };
  return {
    async readAll() {
      const frames: RawFrame[] = [];
      let rest = pending;
      let bytes = pending.length;
      const buffer = new Uint8Array(1 << 16);
      for (;;) {
        const { parsed, used } = parseFrames(rest);
        frames.push(...parsed);
        rest = rest.slice(used);
        if (frames.some((f) => f.opcode === 8)) break;
        const n = await conn.read(buffer).catch(() => null);
        if (n === null) break;
        rest = concatBytes([rest, buffer.subarray(0, n)]);
        bytes += n;
      }
      if (frames.some((f) => f.opcode === 8)) {
        // answer the close (a client's frames are masked; an empty close with a zero mask)
        await conn.write(new Uint8Array([0x88, 0x80, 0, 0, 0, 0])).catch(() => {});
      }
      close();
      return { frames, bytes };
    },
    close,
  };
}

/** The close frame's code. */
export function closeCode(frame: RawFrame): number {
  return frame.payload.length >= 2 ? (frame.payload[0] << 8) | frame.payload[1] : 1005;
}

/** The whole frames at the start of these bytes, and how many bytes they took. */
function parseFrames(bytes: Uint8Array): { parsed: RawFrame[]; used: number } {
  const frames: RawFrame[] = [];
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at] & 0x0f;
    let length = bytes[at + 1] & 0x7f;
    let offset = at + 2;
    if (length === 126) {
      if (offset + 2 > bytes.length) break;
      length = (bytes[offset] << 8) | bytes[offset + 1];
      offset += 2;
    } else if (length === 127) {
      if (offset + 8 > bytes.length) break;
      length = Number(new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigUint64(0));
      offset += 8;
    }
    if (offset + length > bytes.length) break;
    frames.push({ opcode, payload: bytes.slice(offset, offset + length) });
    at = offset + length;
  }
  return { parsed: frames, used: at };
}

function findHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}
