// Webhook definitions of the management API (/spaces/<space>/webhook_definitions): their wire shape,
// the checks on a definition a client sends (422 for a bad url, topic or header), and their writes.
// Secret header values are kept for deliveries and never read back: a read shows { key, secret: true }.
import type { Sql } from "../../../shared/db.ts";
import { randomBase62 } from "../../../shared/ids.ts";
import { webhookTargetProblem } from "../../../shared/webhooks/url-guard.ts";
import { ContentError, notFound } from "../envelope.ts";
import {
  type DefinitionInput,
  type DefinitionRow,
  deleteWebhookDefinition,
  insertWebhookDefinition,
  invalidTopics,
  replaceWebhookDefinition,
  validRegexp,
  webhookDefinition,
} from "../store/webhook-definitions.ts";
import { type ManagementActor, managementTransaction } from "../store/management.ts";
import { spaceLink } from "./shape.ts";
import { checkVersion, type FieldProblem, validationFailed } from "./management-rules.ts";

const userLink = (id: string | null) => (id ? { sys: { type: "Link", linkType: "User", id } } : undefined);

export function shapeDefinition(row: DefinitionRow, space: string) {
  return {
    sys: {
      type: "WebhookDefinition",
      id: row.id,
      version: row.version,
      space: spaceLink(space),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      ...(row.createdBy ? { createdBy: userLink(row.createdBy) } : {}),
      ...(row.updatedBy ? { updatedBy: userLink(row.updatedBy) } : {}),
    },
    name: row.name,
    url: row.url,
    topics: row.topics,
    headers: [
      ...row.headers.map((h) => ({ key: h.key, value: h.value })),
      ...row.secretHeaders.map((h) => ({ key: h.key, secret: true })),
    ],
    filters: row.filters,
    active: row.active,
    source: row.source,
  };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers a delivery sets itself: a definition cannot replace them. */
const RESERVED = new Set(["content-type", "content-length", "host", "x-contentful-topic", "x-contentful-webhook-name"]);

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A definition as sent (POST, or PUT which replaces it whole). A secret header sent back as
 * { key, secret: true } without a value keeps the value stored under that key.
 */
export async function readDefinition(
  sql: Sql,
  body: unknown,
  options: { stored?: DefinitionRow; allowPrivate: boolean },
): Promise<DefinitionInput> {
  const { stored } = options;
  if (!isMap(body)) throw new ContentError("BadQuery", "The body must be a JSON object { name, url, topics, headers?, active? }.");
  const problems: FieldProblem[] = [];
  const { name, url, topics, headers, active } = body;
  if (typeof name !== "string" || !name.trim() || name.length > 255) {
    problems.push({ name: "invalid", path: ["name"], details: "name is required (at most 255 characters)", value: name });
  }
  const urlProblem = typeof url !== "string" ? "url is required" : webhookTargetProblem(url, options.allowPrivate);
  if (urlProblem) problems.push({ name: "invalid", path: ["url"], details: urlProblem, value: url });
  let topicList: string[] = [];
  if (!Array.isArray(topics) || !topics.length || !topics.every((t) => typeof t === "string")) {
    problems.push({ name: "invalid", path: ["topics"], details: "topics is a list such as [\"Entry.publish\", \"Asset.*\"]", value: topics });
  } else {
    topicList = [...new Set(topics as string[])];
    for (const topic of await invalidTopics(sql, topicList)) {
      problems.push({
        name: "invalid",
        path: ["topics"],
        details: "a topic is <Entry|Asset|*>.<create|save|publish|unpublish|delete|*>",
        value: topic,
      });
    }
  }
  if (active !== undefined && typeof active !== "boolean") {
    problems.push({ name: "invalid", path: ["active"], details: "active is true or false", value: active });
  }
  const shown: DefinitionInput["headers"] = [];
  const hidden: DefinitionInput["secretHeaders"] = [];
  if (headers !== undefined && !Array.isArray(headers)) {
    problems.push({ name: "invalid", path: ["headers"], details: "headers is a list of { key, value, secret? }" });
  }
  for (const [i, header] of (Array.isArray(headers) ? headers : []).entries()) {
    const path = ["headers", i];
    const key = isMap(header) ? header.key : undefined;
    if (!isMap(header) || typeof key !== "string" || !HEADER_NAME.test(key) || RESERVED.has(key.toLowerCase())) {
      problems.push({ name: "invalid", path, details: "a header is { key, value, secret? } with a header name a delivery does not set itself", value: key });
      continue;
    }
    const secret = header.secret === true;
    let value = header.value;
    if (value === undefined && secret) value = stored?.secretHeaders.find((h) => h.key === key)?.value;
    if (typeof value !== "string" || /[\r\n\0]/.test(value) || value.length > 1000) {
      problems.push({ name: "invalid", path, details: "a header value is text on one line (at most 1000 characters)" });
      continue;
    }
    (secret ? hidden : shown).push({ key, value });
  }
  const filterList = await readFilters(sql, body.filters, problems);
  if (problems.length) throw validationFailed(problems);
  return {
    filters: filterList,
    name: (name as string).trim(),
    url: url as string,
    topics: topicList,
    headers: shown,
    secretHeaders: hidden,
    active: (active as boolean | undefined) ?? true,
  };
}

/** The record paths a filter may test (Contentful's, for entries and assets). */
export const FILTER_PATHS = ["sys.id", "sys.contentType.sys.id", "sys.environment.sys.id", "sys.createdBy.sys.id"];
const FILTER_SHAPE =
  'a filter is { equals: [{ doc }, "value"] }, { in: [{ doc }, ["value", ...]] }, { regexp: [{ doc }, { pattern }] } ' +
  "or { not: <one of those> }";

/**
 * Contentful's `filters` (absent or null: none), each checked so that the outbox trigger, which evaluates
 * them for every change (migration 20261125211200), only meets shapes it knows. Problems go to `problems`.
 */
async function readFilters(sql: Sql, value: unknown, problems: FieldProblem[]): Promise<unknown[]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 20) {
    problems.push({ name: "invalid", path: ["filters"], details: "filters is a list of at most 20 filters" });
    return [];
  }
  const checked: unknown[] = [];
  for (const [i, filter] of value.entries()) {
    const why = await filterProblem(sql, filter, true);
    if (why) problems.push({ name: "invalid", path: ["filters", i], details: why, value: filter });
    else checked.push(filter);
  }
  return checked;
}

async function filterProblem(sql: Sql, filter: unknown, mayNegate: boolean): Promise<string | undefined> {
  if (!isMap(filter) || Object.keys(filter).length !== 1) return FILTER_SHAPE;
  const [kind] = Object.keys(filter);
  const operands = filter[kind];
  if (kind === "not") return mayNegate ? await filterProblem(sql, operands, false) : "a not filter holds one of equals, in or regexp";
  if (!["equals", "in", "regexp"].includes(kind) || !Array.isArray(operands) || operands.length !== 2) return FILTER_SHAPE;
  const [doc, operand] = operands;
  if (!isMap(doc) || Object.keys(doc).length !== 1 || !FILTER_PATHS.includes(doc.doc as string)) {
    return `a filter's doc is one of ${FILTER_PATHS.join(", ")}`;
  }
  const text = (v: unknown) => typeof v === "string" && v.length <= 500;
  if (kind === "equals" && !text(operand)) return "equals compares with a string";
  if (kind === "in" && !(Array.isArray(operand) && operand.length > 0 && operand.length <= 100 && operand.every(text))) {
    return "in takes a list of 1 to 100 strings";
  }
  if (kind === "regexp") {
    const pattern = isMap(operand) && Object.keys(operand).length === 1 ? operand.pattern : undefined;
    if (!text(pattern)) return "regexp takes { pattern: <regular expression> }";
    if (!(await validRegexp(sql, pattern as string))) return "the pattern is not a regular expression";
  }
  return undefined;
}

export async function readStoredDefinition(sql: Sql, id: string): Promise<DefinitionRow> {
  const row = await webhookDefinition(sql, id);
  if (!row) throw notFound("WebhookDefinition", id);
  return row;
}

/** A definition declared in the site's configuration changes only there. */
function declaredRefusal(id: string): ContentError {
  return new ContentError(
    "BadRequest",
    `The webhook definition ${id} is declared in the site's configuration (source file): change it there.`,
  );
}

export interface DefinitionWriter {
  sql: Sql;
  actor: ManagementActor;
  now: Date;
  /** let definitions name loopback and private addresses (development and tests) */
  allowPrivate: boolean;
}

export async function createDefinition(w: DefinitionWriter, body: unknown): Promise<DefinitionRow> {
  const input = await readDefinition(w.sql, body, { allowPrivate: w.allowPrivate });
  return await managementTransaction(w.sql, w.actor, (tx) => insertWebhookDefinition(tx, randomBase62(22), input, w.now));
}

export async function replaceDefinition(
  w: DefinitionWriter,
  id: string,
  version: number | undefined,
  body: unknown,
): Promise<DefinitionRow> {
  const { sql, actor, now } = w;
  const stored = await readStoredDefinition(sql, id);
  if (stored.source === "file") throw declaredRefusal(id);
  const input = await readDefinition(sql, body, { stored, allowPrivate: w.allowPrivate });
  return await managementTransaction(sql, actor, async (tx) => {
    const current = await webhookDefinition(tx, id, true);
    if (!current) throw notFound("WebhookDefinition", id);
    checkVersion(version, current.version, true);
    return await replaceWebhookDefinition(tx, id, input, now);
  });
}

export async function removeDefinition(sql: Sql, id: string, version: number | undefined): Promise<void> {
  const stored = await readStoredDefinition(sql, id);
  if (stored.source === "file") throw declaredRefusal(id);
  checkVersion(version, stored.version, false);
  await deleteWebhookDefinition(sql, id);
}
