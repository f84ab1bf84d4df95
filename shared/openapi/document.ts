// The generated OpenAPI 3.1 document (spec: "Generated OpenAPI document"): a pure function of the site's
// name, space, addresses, module switches, content types and locales. The document is the sum of its
// sections (sections/index.ts); each contributes tags, paths and components, gated by module switches.
import { typeSchemaNames } from "./schemas.ts";
import { DEFAULT_SECTIONS, SERVED_SECTIONS } from "./sections/index.ts";
import { formsSection } from "./sections/forms.ts";
import { networkSection } from "./sections/network.ts";
import { schedulingSection } from "./sections/scheduling.ts";
import { storeSection } from "./sections/store.ts";
import { supportSection } from "./sections/support.ts";
import type {
  Components,
  HttpMethod,
  ModuleName,
  OpenApiDocument,
  OpenApiInput,
  OpenApiSection,
  PathItem,
  SectionContext,
  TagGroup,
} from "./types.ts";

export type * from "./types.ts";
export { DEFAULT_SECTIONS, SERVED_SECTIONS };

export class OpenApiBuildError extends Error {}

const METHODS: HttpMethod[] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The names every section derives from the input, computed once. */
export function sectionContext(
  input: OpenApiInput,
  sections: readonly OpenApiSection[] = DEFAULT_SECTIONS,
): SectionContext {
  const reserved = sections.filter((s) => sectionEnabled(s, input.modules)).flatMap((s) =>
    s.schemaNames ?? []
  );
  const defaultLocale = input.locales.find((l) => l.default)?.code ?? input.locales[0]?.code;
  return {
    input,
    typeIds: input.contentTypes.map((t) => t.sys.id),
    typeSchemaNames: typeSchemaNames(input.contentTypes, reserved),
    localeCodes: input.locales.map((l) => l.code),
    defaultLocale,
    deliveryPublic: input.api?.public ?? true,
  };
}

/** Whether every module the section requires is switched on. */
export function sectionEnabled(section: OpenApiSection, modules: OpenApiInput["modules"]): boolean {
  return (section.requires ?? []).every((name: ModuleName) => modules[name] === true);
}

/**
 * Builds the document. `sections` defaults to every section of the product; tests and later issues may
 * pass their own list. Throws OpenApiBuildError when two sections claim the same operation, operationId,
 * tag or (differing) component.
 */
export function buildOpenApiDocument(
  input: OpenApiInput,
  sections: readonly OpenApiSection[] = DEFAULT_SECTIONS,
): OpenApiDocument {
  const ctx = sectionContext(input, sections);
  const doc: OpenApiDocument = {
    openapi: "3.1.0",
    info: {
      title: `${input.site.name} API`,
      version: "1",
      description: infoDescription(input, sections),
    },
    servers: [
      { url: trimSlash(input.publicUrl), description: "The site's public address." },
      {
        url: `${trimSlash(input.functionsUrl)}/functions/v1/content`,
        description:
          "The content function's own address. It answers the same requests; there the content paths drop their " +
          "/api/content prefix (for example /functions/v1/content/spaces/{space}/entries).",
      },
    ],
    tags: [],
    "x-tagGroups": [],
    paths: {},
    components: {},
  };

  const groups = new Map<string, TagGroup>();
  const operationIds = new Map<string, string>();
  for (const section of sections) {
    if (!sectionEnabled(section, input.modules)) continue;
    for (const tag of section.tags ?? []) {
      if (doc.tags.some((t) => t.name === tag.name)) {
        throw new OpenApiBuildError(`section ${section.name}: tag ${tag.name} is already declared`);
      }
      doc.tags.push(tag.description ? { name: tag.name, description: tag.description } : { name: tag.name });
      let group = groups.get(tag.group);
      if (!group) {
        group = { name: tag.group, tags: [] };
        groups.set(tag.group, group);
        doc["x-tagGroups"].push(group);
      }
      group.tags.push(tag.name);
    }
    mergeComponents(doc.components, section.components?.(ctx) ?? {}, section.name);
    for (const [path, item] of Object.entries(section.paths?.(ctx) ?? {})) {
      mergePath(doc.paths, path, item, section.name);
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const previous = operationIds.get(op.operationId);
        if (previous) {
          throw new OpenApiBuildError(
            `section ${section.name}: operationId ${op.operationId} of ${method.toUpperCase()} ${path} is already used by ${previous}`,
          );
        }
        operationIds.set(op.operationId, `${method.toUpperCase()} ${path}`);
      }
    }
  }
  return doc;
}

function mergePath(paths: Record<string, PathItem>, path: string, item: PathItem, section: string) {
  const existing = paths[path];
  if (!existing) {
    paths[path] = item;
    return;
  }
  if (!sameJson(existing.parameters ?? [], item.parameters ?? [])) {
    throw new OpenApiBuildError(`section ${section}: path ${path} is declared with other path parameters`);
  }
  for (const method of METHODS) {
    if (!item[method]) continue;
    if (existing[method]) {
      throw new OpenApiBuildError(`section ${section}: ${method.toUpperCase()} ${path} is already declared`);
    }
    existing[method] = item[method];
  }
}

function mergeComponents(into: Components, from: Components, section: string) {
  for (const [kind, entries] of Object.entries(from) as [keyof Components, Record<string, unknown>][]) {
    if (!entries) continue;
    const target = (into[kind] ??= {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(entries)) {
      if (name in target && !sameJson(target[name], value)) {
        throw new OpenApiBuildError(
          `section ${section}: components.${kind}.${name} is already declared differently`,
        );
      }
      target[name] = value;
    }
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * One line per module-gated API for the document's introduction: its section (a line is written only when
 * the document has that section) and the modules it needs.
 */
const OTHER_APIS: [OpenApiSection, ModuleName[], string][] = [
  [formsSection, ["forms"], "**Forms API** (Typeform-compatible) at /api/forms, under a forms key."],
  [schedulingSection, ["sessions"], "**Scheduling API** (Cal.com API v2-compatible) at /api/scheduling/v2, under a scheduling key or a person's JWT."],
  [storeSection, ["store", "api"], "**Store API** (Shopify Storefront-compatible GraphQL) at `/api/{version}/graphql.json` (such as `/api/2024-10/graphql.json`), under a storefront key."],
  [supportSection, ["support"], "**Support API** (Chatwoot-compatible) at /api/desk, for visitors (no key) and the desk (a support key)."],
  [networkSection, ["network"], "**Network API** (AT Protocol): XRPC at /xrpc, for members' apps signed in with an app password."],
];

function infoDescription(input: OpenApiInput, sections: readonly OpenApiSection[]): string {
  const open = input.api?.public ?? true;
  return [
    `The HTTP APIs of ${input.site.name}, compatible with the clients of well-known services.`,
    "",
    "**Content API** (Contentful-compatible): delivery and preview reads, sync and the image door, for the space " +
    `\`${input.space}\`. Send an API key as \`Authorization: Bearer <API_KEY>\` or \`?access_token=<API_KEY>\`; ` +
    (open ? "delivery answers without a key too. " : "delivery needs a delivery or preview key. ") +
    "A preview key also sees drafts. Reads accept GET, HEAD and OPTIONS; CORS is open. Answers carry an ETag; " +
    "If-None-Match with it gives 304. Errors are { sys: { type: Error, id }, message, details?, requestId }.",
    "",
    ...OTHER_APIS.filter(([section, modules]) =>
      sections.includes(section) && modules.every((m) => input.modules[m] === true)
    ).map(([, , text]) => `${text}\n`),
    "**Analytics API** (PostHog-compatible): /api/events takes events and answers feature flags for the site's " +
    "analytics token.",
    "",
    "Each API answers errors in its own vendor's envelope. This document needs no key.",
  ].join("\n");
}
