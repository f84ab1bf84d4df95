// Outbound URL checks for webhook targets: a shape check when a subscription is created, and an address
// check at send time that refuses loopback, private, link-local and other non-public destinations
// unless the site's configuration allows them (development and tests do).

/** `transient` marks a refusal that may pass later (the name did not resolve). */
export type UrlCheck = { ok: true; addresses: string[] } | { ok: false; reason: string; transient?: boolean };

export interface CheckOptions {
  /** Let loopback, private and link-local targets through (development and tests). */
  allowPrivate?: boolean;
  /** Name resolution, replaceable in tests; defaults to Deno.resolveDns for A and AAAA records. */
  resolve?: (hostname: string) => Promise<string[]>;
}

/** The reason a webhook URL is unacceptable at create time, or undefined when it is well formed. */
export function webhookUrlProblem(url: string): string | undefined {
  if (typeof url !== "string" || !url.trim()) return "url is required";
  if (url.length > 2048) return "url is longer than 2048 characters";
  // the URL parser would drop tabs and newlines silently and keep the rest: refuse what was sent
  // deno-lint-ignore no-control-regex -- control characters are what it looks for
  if (/[\u0000-\u001f\u007f]/.test(url)) return "url may not contain control characters";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "url is not a valid absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "url must use http or https";
  if (!parsed.hostname) return "url has no host";
  if (parsed.username || parsed.password) return "url must not contain credentials";
  return undefined;
}

/**
 * Create-time address check that asks no DNS: why a well-formed url whose host is `localhost` or a
 * literal loopback, private or otherwise non-public address can never be delivered to (the send-time
 * check would refuse it), or undefined. Names are judged at send time, when they are resolved.
 */
export function literalPrivateTarget(url: string): string | undefined {
  let host: string;
  try {
    host = stripBrackets(new URL(url).hostname).replace(/\.$/, "");
  } catch {
    return undefined; // the shape check speaks for it
  }
  if (host === "localhost" || host.endsWith(".localhost")) return `url points at the loopback host ${host}`;
  if (!parseIPv4(host) && !parseIPv6(host)) return undefined;
  const range = blockedRange(host);
  return range ? `url points at a ${range} address (${host}), which deliveries may not reach` : undefined;
}

/**
 * The create and update check of every API's webhook target (content definitions, form webhooks,
 * scheduling subscriptions): the shape, then, unless the configuration allows private targets
 * (RuntimeConfig.allowPrivateWebhookTargets, the same value the dispatcher reads), a literal loopback,
 * private or otherwise non-public host. Names are judged at send time, when they are resolved.
 */
export function webhookTargetProblem(url: string, allowPrivate: boolean): string | undefined {
  return webhookUrlProblem(url) ?? (allowPrivate ? undefined : literalPrivateTarget(url));
}

/** Create-time shape check: http(s), a host, no user:password. */
export function isValidWebhookUrl(url: string): boolean {
  return webhookUrlProblem(url) === undefined;
}

/**
 * Send-time check: the shape, then every address the host resolves to. Literal IPs are checked
 * directly, `localhost` (and `*.localhost`) counts as loopback without asking DNS.
 */
export async function checkOutboundUrl(url: string, options: CheckOptions = {}): Promise<UrlCheck> {
  const problem = webhookUrlProblem(url);
  if (problem) return { ok: false, reason: problem };
  const host = stripBrackets(new URL(url).hostname).replace(/\.$/, "");
  if (options.allowPrivate) return { ok: true, addresses: [] };

  if (host === "localhost" || host.endsWith(".localhost")) {
    return { ok: false, reason: `loopback host ${host}` };
  }

  let addresses: string[];
  if (parseIPv4(host) || parseIPv6(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (options.resolve ?? resolveHost)(host);
    } catch {
      // the resolver's own text names its internals (resolv.conf, the runtime): say what is wrong instead
      return { ok: false, reason: `the host ${host} does not resolve`, transient: true };
    }
    if (!addresses.length) return { ok: false, reason: `the host ${host} does not resolve`, transient: true };
  }
  for (const address of addresses) {
    const range = blockedRange(address);
    if (range) return { ok: false, reason: `${range} address ${address}` };
  }
  return { ok: true, addresses };
}

async function resolveHost(hostname: string): Promise<string[]> {
  const [v4, v6] = await Promise.allSettled([
    Deno.resolveDns(hostname, "A"),
    Deno.resolveDns(hostname, "AAAA"),
  ]);
  const addresses = [
    ...(v4.status === "fulfilled" ? v4.value : []),
    ...(v6.status === "fulfilled" ? v6.value : []),
  ];
  if (!addresses.length && v4.status === "rejected") throw v4.reason;
  return addresses;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * The name of the non-public range an address falls in (`loopback`, `private`, `link-local`,
 * `unspecified`, `shared (CGNAT)`, `multicast`, `broadcast`, `reserved`...), or undefined for a public
 * address. Text that is not an IP address answers `invalid`.
 */
export function blockedRange(address: string): string | undefined {
  const v4 = parseIPv4(address);
  if (v4) return blockedV4(v4);
  const v6 = parseIPv6(stripBrackets(address));
  if (v6) return blockedV6(v6);
  return "invalid";
}

// [first octets..., prefix length, name]; checked in order, so specific ranges come first.
const V4_RANGES: [number[], number, string][] = [
  [[0, 0, 0, 0], 32, "unspecified"],
  [[0], 8, "this-network"],
  [[127], 8, "loopback"],
  [[10], 8, "private"],
  [[172, 16], 12, "private"],
  [[192, 168], 16, "private"],
  [[169, 254], 16, "link-local"],
  [[100, 64], 10, "shared (CGNAT)"],
  [[192, 0, 0], 24, "reserved"], // IETF protocol assignments
  [[198, 18], 15, "reserved"], // benchmarking
  [[224], 4, "multicast"],
  [[255, 255, 255, 255], 32, "broadcast"],
  [[240], 4, "reserved"],
];

function blockedV4(bytes: number[]): string | undefined {
  const value = toUint32(bytes);
  for (const [prefix, bits, name] of V4_RANGES) {
    const base = toUint32([...prefix, 0, 0, 0, 0].slice(0, 4));
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === ((base & mask) >>> 0)) return name;
  }
  return undefined;
}

function blockedV6(b: number[]): string | undefined {
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return "unspecified";
  if (zeroUpTo(15) && b[15] === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d carry an IPv4 address: judge that.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return blockedV4(b.slice(12));
  if (zeroUpTo(12)) return blockedV4(b.slice(12));
  // NAT64 64:ff9b::/96 and 6to4 2002::/16 also embed IPv4 addresses.
  if (
    b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0)
  ) {
    return blockedV4(b.slice(12));
  }
  if (b[0] === 0x20 && b[1] === 0x02) return blockedV4(b.slice(2, 6));
  if ((b[0] & 0xfe) === 0xfc) return "private"; // fc00::/7 unique local
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return "link-local"; // fe80::/10
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return "site-local"; // fec0::/10, deprecated
  if (b[0] === 0xff) return "multicast"; // ff00::/8
  return undefined;
}

function toUint32(bytes: number[]): number {
  return ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
}

/** Dotted-quad IPv4 (as URL and DNS give it) to four bytes. */
export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** IPv6 text (with `::` compression and an optional trailing dotted quad) to sixteen bytes. */
export function parseIPv6(text: string): number[] | undefined {
  if (!text.includes(":")) return undefined;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (!part) return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4(piece);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  let all: number[];
  if (halves.length === 2) {
    if (head.length + tail.length > 7) return undefined;
    all = [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    if (head.length !== 8) return undefined;
    all = head;
  }
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}
