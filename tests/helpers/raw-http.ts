// One HTTP/1.1 exchange over a plain socket, for requests fetch() will not send (TRACE, TRACK, a
// lower-case method): what a hostile client can put on the wire.
export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

export async function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = "",
): Promise<RawResponse> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body) lines.push(`Content-Length: ${new TextEncoder().encode(body).byteLength}`);
  await connection.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n" + body));
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of connection.readable) text += decoder.decode(chunk, { stream: true });
  const split = text.indexOf("\r\n\r\n");
  const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
  const responseHeaders = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    responseHeaders.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let rest = text.slice(split + 4);
  if (responseHeaders.get("transfer-encoding")?.includes("chunked")) {
    let decoded = "";
    for (;;) {
      const end = rest.indexOf("\r\n");
      const size = Number.parseInt(rest.slice(0, end), 16);
      if (!size) break;
      decoded += rest.slice(end + 2, end + 2 + size);
      rest = rest.slice(end + 2 + size + 2);
    }
    rest = decoded;
  }
  return { status: Number(statusLine.split(" ")[1]), headers: responseHeaders, body: rest };
}
