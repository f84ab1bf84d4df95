// Directus 12 beside the site's content API: the same articles (read back from the site's own delivery
// API, with the entries and assets two levels of links reach) in a Directus collection with typed columns,
// an asset collection for the covers (many-to-one) and the entry links as a many-to-many, on a fresh
// PostgreSQL database. The list read asks Directus for what include=2 answers: the page, the assets and
// entries it links to, and theirs.
import { freePort, freshPeerDatabase, installNodePackages, PEERS_DIR, startNodeScript } from "./node.ts";

export const DIRECTUS_PACKAGES = ["directus@12.4.0"]; // 12.4.1 pins an app build the registry lacks

/** The Directus read equivalent to entries?content_type=…&include=2&limit=100 (covers, links, links of links). */
export const DIRECTUS_LIST_FIELDS = [
  "*",
  "cover.*",
  "related.related_id.*",
  "related.related_id.cover.*",
  "related.related_id.related.related_id.*",
].join(",");

interface Entry {
  sys: { id: string; type: string; createdAt: string; contentType?: { sys: { id: string } } };
  fields: Record<string, unknown>;
}

interface Link {
  sys: { type: "Link"; linkType: "Entry" | "Asset"; id: string };
}

const isLink = (value: unknown): value is Link =>
  !!value && typeof value === "object" && (value as Link).sys?.type === "Link";

export interface DeliveryPage {
  items: Entry[];
  includes?: { Entry?: Entry[]; Asset?: Entry[] };
}

/** Columns and rows for Directus from a delivery page with its includes. */
function directusData(page: DeliveryPage) {
  const entries = [...page.items, ...(page.includes?.Entry ?? [])];
  // links the site could not resolve (the demo has broken ones on purpose) are left out, as include leaves them
  const known = new Set(entries.map((e) => e.sys.id));
  const knownAssets = new Set((page.includes?.Asset ?? []).map((a) => a.sys.id));
  const columns = new Map<string, string>();
  const articles: Record<string, unknown>[] = [];
  const related: { articles_id: string; related_id: string }[] = [];
  let assetField: string | undefined;
  let linksField: string | undefined;
  for (const entry of entries) {
    const row: Record<string, unknown> = {
      id: entry.sys.id,
      content_type: entry.sys.contentType?.sys.id ?? "",
      created_at: entry.sys.createdAt,
    };
    for (const [name, value] of Object.entries(entry.fields)) {
      if (isLink(value) && value.sys.linkType === "Asset") {
        assetField ??= name;
        if (name === assetField && knownAssets.has(value.sys.id)) row.cover = value.sys.id;
        continue;
      }
      if (Array.isArray(value) && value.length && value.every(isLink)) {
        linksField ??= name;
        if (name === linksField) {
          for (const link of value) {
            if (known.has(link.sys.id)) related.push({ articles_id: entry.sys.id, related_id: link.sys.id });
          }
        }
        continue;
      }
      if (isLink(value)) continue;
      const type = typeof value === "string"
        ? "text"
        : typeof value === "boolean"
        ? "boolean"
        : typeof value === "number"
        ? (Number.isInteger(value) && columns.get(name) !== "float" ? "integer" : "float")
        : "json";
      if (columns.has(name) && columns.get(name) !== type) {
        columns.set(name, type === "float" ? "float" : "json");
      } else columns.set(name, type);
      row[name] = value;
    }
    articles.push(row);
  }
  const assets = (page.includes?.Asset ?? []).map((a) => {
    const file = (a.fields.file ?? {}) as {
      url?: string;
      fileName?: string;
      contentType?: string;
      details?: { size?: number; image?: { width: number; height: number } };
    };
    return {
      id: a.sys.id,
      title: a.fields.title ?? null,
      description: a.fields.description ?? null,
      file_name: file.fileName ?? null,
      content_type: file.contentType ?? null,
      url: file.url ?? null,
      size: file.details?.size ?? null,
      width: file.details?.image?.width ?? null,
      height: file.details?.image?.height ?? null,
    };
  });
  return { columns, articles, related, assets };
}

export interface RunningDirectus {
  url: string;
  token: string;
  stop(): Promise<void>;
}

/** Directus on a fresh database holding the page's articles, their links and covers. */
export async function startDirectus(
  page: DeliveryPage,
  say: (line: string) => void,
): Promise<RunningDirectus> {
  const install = await installNodePackages(
    `${PEERS_DIR}directus/`,
    DIRECTUS_PACKAGES,
    (l) => say(`directus: ${l}`),
  );
  const database = await freshPeerDatabase("sitewire_directus");
  const db = new URL(database.url);
  const token = `bench-${crypto.randomUUID()}`;
  const port = freePort();
  try {
    say("directus: bootstrapping a fresh database and starting");
    const child = await startNodeScript(install, new URL("./directus-server.mjs", import.meta.url), {
      DB_CLIENT: "pg",
      DB_HOST: db.hostname,
      DB_PORT: db.port || "5432",
      DB_DATABASE: database.name,
      DB_USER: decodeURIComponent(db.username || "postgres"),
      DB_PASSWORD: decodeURIComponent(db.password),
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SECRET: crypto.randomUUID(),
      ADMIN_EMAIL: "admin@example.com",
      ADMIN_PASSWORD: crypto.randomUUID(),
      ADMIN_TOKEN: token,
      // its defaults otherwise (no cache, no rate limiter), as a new installation runs, except its
      // pressure limiter: on by default, it answers 503 at once when the event loop lags, and a quick 503
      // would count as a request served
      PRESSURE_LIMITER_ENABLED: "false",
      LOG_LEVEL: "warn",
      LOG_STYLE: "raw",
      TELEMETRY: "false",
      NODE_ENV: "production",
    }, { readyWithinMs: 600_000, progress: (line) => say(line) });
    const url = (child.ready as { url: string }).url;
    try {
      await loadDirectus(url, token, page, say);
    } catch (error) {
      await child.stop();
      throw error;
    }
    return {
      url,
      token,
      async stop() {
        await child.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

async function loadDirectus(url: string, token: string, page: DeliveryPage, say: (line: string) => void) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`directus ${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
  const { columns, articles, related, assets } = directusData(page);
  const text = (field: string) => ({ field, type: "text" });
  // Directus gives some types field metadata of its own (json: cast-json), which then must name its
  // collection and field: every field names them
  const collection = (
    name: string,
    body: { meta: Record<string, unknown>; fields: Record<string, unknown>[] },
  ) =>
    call("POST", "/collections", {
      collection: name,
      schema: {},
      ...body,
      meta: { collection: name, ...body.meta },
      fields: body.fields.map((f) => ({
        ...f,
        meta: { collection: name, field: f.field, ...(f.meta ?? {}) },
      })),
    });
  await collection("bench_assets", {
    meta: {},
    fields: [
      { field: "id", type: "string", schema: { is_primary_key: true, is_nullable: false } },
      text("title"),
      text("description"),
      text("file_name"),
      text("content_type"),
      text("url"),
      { field: "size", type: "integer" },
      { field: "width", type: "integer" },
      { field: "height", type: "integer" },
    ],
  });
  await collection("articles", {
    meta: {},
    fields: [
      { field: "id", type: "string", schema: { is_primary_key: true, is_nullable: false } },
      // the list filters by type and sorts by creation, as the site's does: both indexed, as there
      { field: "content_type", type: "string", schema: { is_indexed: true } },
      { field: "created_at", type: "timestamp", schema: { is_indexed: true } },
      { field: "cover", type: "string" },
      ...[...columns].map(([field, type]) => ({ field, type })),
    ],
  });
  await call("POST", "/relations", {
    collection: "articles",
    field: "cover",
    related_collection: "bench_assets",
  });
  await collection("articles_related", {
    meta: { hidden: true },
    fields: [
      { field: "id", type: "integer", schema: { is_primary_key: true, has_auto_increment: true } },
      { field: "articles_id", type: "string" },
      { field: "related_id", type: "string" },
    ],
  });
  await call("POST", "/fields/articles", {
    field: "related",
    type: "alias",
    meta: { collection: "articles", field: "related", special: ["m2m"], interface: "list-m2m" },
  });
  await call("POST", "/relations", {
    collection: "articles_related",
    field: "articles_id",
    related_collection: "articles",
    meta: { one_field: "related", junction_field: "related_id" },
    schema: { on_delete: "CASCADE" },
  });
  await call("POST", "/relations", {
    collection: "articles_related",
    field: "related_id",
    related_collection: "articles",
    meta: { one_field: null, junction_field: "articles_id" },
    schema: { on_delete: "CASCADE" },
  });
  if (assets.length) await call("POST", "/items/bench_assets", assets);
  await call("POST", "/items/articles", articles);
  if (related.length) await call("POST", "/items/articles_related", related);
  say(
    `directus: ${articles.length} entries (${page.items.length} on the page), ${assets.length} assets, ${related.length} links loaded`,
  );
}
