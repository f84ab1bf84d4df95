// GraphQL names for content types and fields, as Contentful's schema generation makes them: a type is the
// PascalCase of the content type id with non-alphanumerics stripped; a name that starts with a digit or is
// reserved takes the prefix ContentType. Collisions are the site's modelling mistakes and refuse the
// schema (COLLIDING_TYPE_NAMES, COLLIDING_FIELD_NAMES, RESERVED_FIELD_NAME), as Contentful does.
import { GraphqlFailure } from "./envelope.ts";

/** Contentful's reserved type names, plus the types this schema defines beside them. */
const RESERVED_TYPES = new Set([
  "Query",
  "String",
  "Int",
  "Float",
  "Boolean",
  "ID",
  "Location",
  "Circle",
  "Rectangle",
  "DateTime",
  "JSON",
  "RichText",
  "Asset",
  "AssetCollection",
  "AssetLinkingCollections",
  "AssetFilter",
  "AssetOrder",
  "Entry",
  "EntryCollection",
  "EntryOrder",
  "EntryFilter",
  "Sys",
  "SysFilter",
  "ContentfulMetadata",
  "ContentfulTag",
  "ContentfulMetadataFilter",
  "ContentfulMetadataTagsFilter",
  "TaxonomyConcept",
  "Dimension",
  "HexColor",
  "Quality",
  "ImageResizeFocus",
  "ImageResizeStrategy",
  "ImageFormat",
  "ImageTransformOptions",
  "ResourceSys",
  "ResourceLink",
  "ResourceLinkCollection",
  "Never",
]);

/** Fields every entry type has: a content type field of the same id cannot be shown. */
export const RESERVED_FIELDS = new Set(["sys", "contentfulMetadata", "metadata", "linkedFrom"]);

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * "modelEvent" → "ModelEvent"; "my-2content-type" → "My2ContentType"; "location" → "ContentTypeLocation";
 * "5TbTQ4S6xqSeAU6WGQmQ2e" → "ContentType5TbTQ4S6xqSeAU6WGQmQ2e". An id of letters and digits only keeps
 * its case; one with other characters is camel-cased word by word (digit runs are words), as Contentful's
 * own examples show.
 */
export function typeNameOf(contentTypeId: string): string {
  const words = contentTypeId.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
  const pascal = /^[0-9A-Za-z]*$/.test(contentTypeId)
    ? upperFirst(contentTypeId)
    : words.map((w) => upperFirst(w.toLowerCase())).join("");
  return /^[0-9]/.test(pascal) || RESERVED_TYPES.has(pascal) || pascal === ""
    ? `ContentType${pascal}`
    : pascal;
}

/** The query field of a type: its name with a lower-case first letter (`blogPost`, `contentTypeLocation`). */
export function queryNameOf(typeName: string): string {
  return typeName.charAt(0).toLowerCase() + typeName.slice(1);
}

export function upperFirst(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Hands out type names once each: a second taker of a name is a collision. */
export class TypeNames {
  private owners = new Map<string, string>();

  /** `builtin`: the schema's own use of a reserved name */
  claim(name: string, owner: string, builtin = false): string {
    const taken = this.owners.get(name);
    if (taken !== undefined || (RESERVED_TYPES.has(name) && !builtin)) {
      throw new GraphqlFailure(
        "COLLIDING_TYPE_NAMES",
        `Schema generation failed. Type name generated for ${owner}${
          taken ? ` and ${taken}` : ""
        } would be the same: '${name}'`,
        { resultingTypeName: name, collidingContentTypeIds: [taken, owner].filter(Boolean) },
      );
    }
    this.owners.set(name, owner);
    return name;
  }
}

/** Checks a content type's field ids before they become GraphQL fields. */
export function checkFieldNames(contentTypeId: string, names: string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (RESERVED_FIELDS.has(name) || !GRAPHQL_NAME.test(name) || name.startsWith("__")) {
      throw new GraphqlFailure(
        "RESERVED_FIELD_NAME",
        `Schema generation failed. The field '${name}' of content type '${contentTypeId}' cannot be shown: its name is reserved or not a GraphQL name.`,
        { contentTypeId, fieldName: name },
      );
    }
    if (seen.has(name)) {
      throw new GraphqlFailure(
        "COLLIDING_FIELD_NAMES",
        `Schema generation failed. Two fields of content type '${contentTypeId}' would both be named '${name}'.`,
        { contentTypeId, fieldName: name },
      );
    }
    seen.add(name);
  }
}
