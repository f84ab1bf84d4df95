// Types for the generated OpenAPI 3.1 document: what the generator takes in, the few OpenAPI objects it
// builds (kept loose: a Schema Object in 3.1 is any JSON Schema 2020-12 document), and the section contract
// every API's part of the document follows.

/** The module switches of the site's configuration (spec: `api`, `forms`, `sessions`, `store`, `support`, `network`). */
export type ModuleName = "api" | "forms" | "sessions" | "store" | "support" | "network";

/** A content type field as the content API serves it (spec: "Content type"). */
export interface ContentTypeFieldLike {
  id: string;
  name: string;
  type: string;
  localized?: boolean;
  required?: boolean;
  disabled?: boolean;
  omitted?: boolean;
  validations?: Record<string, unknown>[];
  linkType?: string;
  items?: { type: string; linkType?: string; validations?: Record<string, unknown>[] };
}

/** A content type as the content API serves it; only the parts the document needs are required. */
export interface ContentTypeLike {
  sys: { id: string };
  name: string;
  description?: string | null;
  displayField?: string | null;
  fields: ContentTypeFieldLike[];
}

export interface LocaleLike {
  code: string;
  name: string;
  default: boolean;
  fallbackCode: string | null;
}

export interface OpenApiInput {
  site: { name: string; slug: string };
  /** The space id (configuration api.space, default the site's slug). */
  space: string;
  /** {base_url}: the site's public origin, e.g. http://localhost:8000. */
  publicUrl: string;
  /** {function_url}: the content function answers at `${functionsUrl}/functions/v1/content`. */
  functionsUrl: string;
  /** Module switches; a missing switch counts as off. */
  modules: Partial<Record<ModuleName, boolean>> & Record<string, boolean | undefined>;
  contentTypes: ContentTypeLike[];
  locales: LocaleLike[];
  /** Configuration `api`: `public` (default true) lets delivery answer without a key. */
  api?: { public?: boolean };
}

// ---- OpenAPI objects (only as strict as the generator needs) ----

export type Schema = Record<string, unknown>;

export interface Reference {
  $ref: string;
  summary?: string;
  description?: string;
}

export interface Parameter {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema: Schema;
  style?: string;
  explode?: boolean;
  example?: unknown;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema: Schema;
}

export interface MediaType {
  schema?: Schema;
  example?: unknown;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, MediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  responses: Record<string, Response | Reference>;
  security?: SecurityRequirement[];
  deprecated?: boolean;
}

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

export type PathItem = Partial<Record<HttpMethod, Operation>> & {
  summary?: string;
  description?: string;
  parameters?: (Parameter | Reference)[];
};

export interface SecurityScheme {
  type: "http" | "apiKey" | "oauth2" | "openIdConnect" | "mutualTLS";
  description?: string;
  scheme?: string;
  bearerFormat?: string;
  name?: string;
  in?: "query" | "header" | "cookie";
}

export interface Components {
  schemas?: Record<string, Schema>;
  responses?: Record<string, Response>;
  parameters?: Record<string, Parameter>;
  headers?: Record<string, Header>;
  requestBodies?: Record<string, RequestBody>;
  securitySchemes?: Record<string, SecurityScheme>;
}

export interface Tag {
  name: string;
  description?: string;
}

export interface TagGroup {
  name: string;
  tags: string[];
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description?: string };
  servers: { url: string; description?: string }[];
  tags: Tag[];
  "x-tagGroups": TagGroup[];
  paths: Record<string, PathItem>;
  components: Components;
  security?: SecurityRequirement[];
}

// ---- Sections ----

/** What a section sees: the input plus names derived from it once, so every section agrees on them. */
export interface SectionContext {
  input: OpenApiInput;
  /** Content type ids in the input's order. */
  typeIds: string[];
  /** Content type id -> its schema name in components.schemas (PascalCase, collisions resolved). */
  typeSchemaNames: Map<string, string>;
  /** Locale codes in the input's order. */
  localeCodes: string[];
  /** The default locale's code (the first locale's when none is marked default). */
  defaultLocale: string | undefined;
  /** Whether delivery answers without a key (configuration api.public, default true). */
  deliveryPublic: boolean;
}

/** A tag a section owns, and the x-tagGroups group it is listed under. */
export interface SectionTag extends Tag {
  group: string;
}

/**
 * One part of the document: an API (or part of one) contributing tags, paths and components. A section
 * whose `requires` names a module that is off contributes nothing.
 */
export interface OpenApiSection {
  /** For error messages when two sections clash. */
  name: string;
  /** Module switches that must all be on for the section to appear. */
  requires?: ModuleName[];
  /**
   * Names this section puts in components.schemas itself. Content type schemas (named after the type ids)
   * steer clear of them, so a type id never collides with a section's own schema.
   */
  schemaNames?: readonly string[];
  tags?: SectionTag[];
  paths?(ctx: SectionContext): Record<string, PathItem>;
  components?(ctx: SectionContext): Components;
}
