// Content Sync: GET .../sync under both bases (spec: "Sync").
import { readOperation, underBothBases } from "../common.ts";
import type { OpenApiSection } from "../types.ts";
import { contentTypeParameter } from "./content-delivery.ts";

export const CONTENT_SYNC_TAG = "Content Sync";
export const SYNC_TYPES = ["all", "Entry", "Asset", "Deletion", "DeletedEntry", "DeletedAsset"];

export const contentSyncSection: OpenApiSection = {
  name: "content sync",
  tags: [{
    name: CONTENT_SYNC_TAG,
    group: "Content API",
    description:
      "Incremental sync: an initial run pages through every published entry and asset; each page's nextSyncUrl " +
      "then asks for what changed since, deletions included. Items carry every locale.",
  }],
  paths(ctx) {
    return underBothBases("/sync", () =>
      readOperation(ctx, {
        operationId: "sync",
        summary: "Sync entries and assets",
        description:
          "Send `initial=true` to start (pages of 100, nextPageUrl while paging, nextSyncUrl at the end), or " +
          "`sync_token` from a nextPageUrl or nextSyncUrl to continue: entries and assets changed since, plus " +
          "DeletedEntry and DeletedAsset items (sys.deletedAt) for removals. A token the service did not issue is BadQuery; an unknown content_type is " +
          "InvalidQuery (details.errors[0].name unknownContentType).",
        tags: [CONTENT_SYNC_TAG],
        parameters: [
          {
            name: "initial",
            in: "query",
            description: "`true` starts a sync from nothing.",
            schema: { type: "boolean", enum: [true] },
          },
          {
            name: "sync_token",
            in: "query",
            description: "The token of a nextPageUrl or nextSyncUrl.",
            schema: { type: "string" },
          },
          {
            name: "type",
            in: "query",
            description: "With initial=true: narrow to these items (default all).",
            schema: { type: "string", enum: SYNC_TYPES, default: "all" },
          },
          contentTypeParameter(ctx, "With initial=true: only entries of this content type."),
        ],
        ok: { description: "A sync page.", schema: "SyncCollection" },
      }));
  },
};
