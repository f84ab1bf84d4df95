// Components every content API section uses: resource schemas, one schema per content type, the shared
// headers, error answers and path parameters, and the key's security schemes. No tags or paths of its own.
import { contentHeaders, contentParameters, contentResponses, contentSecuritySchemes } from "../common.ts";
import { contentTypeSchema, entrySchema, RESOURCE_SCHEMA_NAMES, resourceSchemas } from "../schemas.ts";
import type { OpenApiSection, Schema } from "../types.ts";

export const contentBaseSection: OpenApiSection = {
  name: "content base",
  schemaNames: RESOURCE_SCHEMA_NAMES,
  components(ctx) {
    const schemas: Record<string, Schema> = resourceSchemas(ctx.localeCodes);
    schemas.Entry = entrySchema(ctx.input.contentTypes, ctx.typeSchemaNames);
    for (const type of ctx.input.contentTypes) {
      schemas[ctx.typeSchemaNames.get(type.sys.id)!] = contentTypeSchema(type);
    }
    return {
      schemas,
      headers: contentHeaders(),
      responses: contentResponses(),
      parameters: contentParameters(ctx),
      securitySchemes: contentSecuritySchemes(),
    };
  },
};
