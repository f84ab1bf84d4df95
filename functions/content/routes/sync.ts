// GET .../sync: initial sync in pages of 100, then deltas with DeletedEntry / DeletedAsset tombstones.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { ContentEnv } from "../access.ts";
import { badQuery } from "../envelope.ts";
import { unknownContentType } from "../domain/entry-query.ts";
import { environmentLink, shapeAsset, shapeEntry, spaceLink } from "../domain/shape.ts";
import {
  decodeSyncToken,
  encodeSyncToken,
  SYNC_TYPES,
  type SyncPosition,
  type SyncType,
} from "../domain/sync-token.ts";
import { modelsFor } from "../models.ts";
import { sendJson } from "../respond.ts";
import { assetsByIds, entriesByIds } from "../store/entries.ts";
import { finishedTransactionsBelow, type SyncKind, syncPage, tombstonesByIds } from "../store/sync.ts";
import { shapeContext, spaceOf } from "./delivery.ts";

export const SYNC_PAGE_SIZE = 100;

function kindsOf(type: SyncType, initial: boolean): SyncKind[] {
  switch (type) {
    case "Entry":
    case "Asset":
    case "DeletedEntry":
    case "DeletedAsset":
      return [type];
    case "Deletion":
      return ["DeletedEntry", "DeletedAsset"];
    default:
      // an initial sync lists what exists; deletions only matter to someone who synced before
      return initial ? ["Entry", "Asset"] : ["Entry", "Asset", "DeletedEntry", "DeletedAsset"];
  }
}

export function syncHandler(ctx: FunctionContext) {
  return async (c: Context<ContentEnv>) => {
    const params = new URL(c.req.url).searchParams;
    const stage = c.get("access").stage;
    const secret = await ctx.secrets.get("sync");
    let position: SyncPosition;
    const token = params.get("sync_token");
    if (token !== null) {
      for (const name of ["initial", "type", "content_type"]) {
        if (params.has(name)) throw badQuery(`sync_token cannot be combined with ${name}`);
      }
      const decoded = await decodeSyncToken(token, secret);
      if (!decoded || decoded.stage !== stage) {
        throw badQuery("The sync token is not valid for this space.", {
          errors: [{ name: "invalidSyncToken" }],
        });
      }
      position = decoded;
    } else if (params.get("initial") === "true") {
      const type = (params.get("type") ?? "all") as SyncType;
      if (!SYNC_TYPES.includes(type)) throw badQuery(`type must be one of ${SYNC_TYPES.join(", ")}`);
      const contentType = params.get("content_type") ?? undefined;
      if (contentType !== undefined) {
        if (type !== "Entry" && type !== "all") {
          throw badQuery("content_type narrows a sync of type Entry only");
        }
        const models = await modelsFor(ctx.sql, c.get("site"));
        if (!models.has(contentType)) throw unknownContentType(contentType);
      }
      position = { stage, type: contentType ? "Entry" : type, contentType, from: 0, initial: true };
    } else {
      throw badQuery("Send initial=true or a sync_token.");
    }

    const to = position.to ?? await finishedTransactionsBelow(ctx.sql);
    const page = await syncPage(ctx.sql, {
      stage,
      kinds: kindsOf(position.type, position.initial),
      contentType: position.contentType,
      from: position.from,
      to,
      cursor: position.cursor,
      limit: SYNC_PAGE_SIZE,
    });
    const items = await loadItems(ctx, c, page.map((p) => ({ kind: p.kind, id: p.id })));
    const full = page.length === SYNC_PAGE_SIZE;
    const { to: _to, cursor: _cursor, ...narrowing } = position;
    const last = page[page.length - 1];
    const next: SyncPosition = full
      ? { ...narrowing, to, cursor: { xid: last.change_xid, seq: last.change_seq } }
      : { ...narrowing, from: to, initial: false };
    const nextToken = await encodeSyncToken(next, secret);
    // the client reads only the token from this address, but people follow it by hand too: give the
    // public one (the function sees its own, rewritten path)
    const nextUrl =
      `${ctx.config.publicUrl}/api/content/spaces/${
        encodeURIComponent(spaceOf(c))
      }/environments/master/sync` +
      `?sync_token=${nextToken}`;
    return sendJson(c, {
      sys: { type: "Array" },
      items,
      ...(full ? { nextPageUrl: nextUrl } : { nextSyncUrl: nextUrl }),
    });
  };
}

async function loadItems(
  ctx: FunctionContext,
  c: Context<ContentEnv>,
  refs: { kind: SyncKind; id: string }[],
) {
  const stage = c.get("access").stage;
  const ids = (kind: SyncKind) => refs.filter((r) => r.kind === kind).map((r) => r.id);
  const deletedIds = [...ids("DeletedEntry"), ...ids("DeletedAsset")];
  const [entries, assets, tombstones] = await Promise.all([
    entriesByIds(ctx.sql, stage, ids("Entry")),
    assetsByIds(ctx.sql, ids("Asset")),
    tombstonesByIds(ctx.sql, stage, deletedIds),
  ]);
  // sync items carry every locale
  const shape = await shapeContext(ctx, c, "*");
  const byKey = new Map<string, unknown>();
  for (const row of entries) byKey.set(`Entry!${row.id}`, shapeEntry(row, shape));
  for (const row of assets) byKey.set(`Asset!${row.id}`, shapeAsset(row, shape));
  for (const t of tombstones) {
    byKey.set(`${t.kind}!${t.id}`, {
      sys: {
        type: t.kind,
        id: t.id,
        space: spaceLink(spaceOf(c)),
        environment: environmentLink,
        revision: t.revision,
        createdAt: t.created_at.toISOString(),
        updatedAt: t.updated_at.toISOString(),
        deletedAt: t.deleted_at.toISOString(),
      },
    });
  }
  // an item changed again while paging may be gone now: it shows up in a later delta instead
  return refs.map((r) => byKey.get(`${r.kind}!${r.id}`)).filter((x) => x !== undefined);
}
