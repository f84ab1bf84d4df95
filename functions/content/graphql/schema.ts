// The executable schema of the site: planned from the content types and built once per site stamp. The
// content types come from models.ts, which caches them under the stamp and hands out the same map until
// the next import; the schema hangs off that map, so it is rebuilt exactly when the models are reloaded.
import { makeExecutableSchema } from "@graphql-tools/schema";
import { type GraphQLSchema, parse } from "graphql";
import type { Db } from "../../../shared/db.ts";
import type { SiteSettings } from "../../../shared/site.ts";
import type { ContentModel } from "../domain/content-types.ts";
import { modelsFor } from "../models.ts";
import { planSchema, type SchemaPlan } from "./plan.ts";
import { buildResolvers } from "./resolvers.ts";

export interface ContentSchema {
  /** leaf fields read as their nodes' properties (resolvers.ts): validates every query and runs most */
  schema: GraphQLSchema;
  /** the same schema whose leaf fields resolve their arguments, for a query that gives a leaf any: built at first need */
  leafArguments: () => GraphQLSchema;
  plan: SchemaPlan;
}

const built = new WeakMap<Map<string, ContentModel>, ContentSchema>();

export function buildContentSchema(models: ContentModel[]): ContentSchema {
  const plan = planSchema(models);
  const typeDefs = parse(plan.sdl);
  let leafArguments: GraphQLSchema | undefined;
  return {
    plan,
    schema: makeExecutableSchema({ typeDefs, resolvers: buildResolvers(plan, false) }),
    leafArguments: () =>
      leafArguments ??= makeExecutableSchema({ typeDefs, resolvers: buildResolvers(plan, true) }),
  };
}

/** The site's schema; a failure to generate it (colliding names) is a GraphqlFailure, thrown each time. */
export async function schemaFor(db: Db, site: SiteSettings): Promise<ContentSchema> {
  const models = await modelsFor(db, site);
  let schema = built.get(models);
  if (!schema) {
    schema = buildContentSchema([...models.values()]);
    built.set(models, schema);
  }
  return schema;
}
