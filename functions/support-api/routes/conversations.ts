// The application API's conversations: the desk's list, one thread, its lines, the agent's answer,
// status, assignment, typing and reading.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { SupportEnv } from "../access.ts";
import { deskToggle, isStatus, listFilters, typingOn } from "../domain/conversations.ts";
import { LIMITS } from "../domain/limits.ts";
import { agentLineProblem } from "../domain/lines.ts";
import { badRequest, conversationListBody, messageListBody, notFound, unprocessable } from "../envelope.ts";
import { signConversationFiles, signMessageFiles } from "../files.ts";
import { deskAgent } from "../store/agents.ts";
import {
  assign,
  conversationJson,
  conversationRow,
  deskConversations,
  markSeen,
  setConversationAttributes,
  setStatus,
  signalTyping,
} from "../store/conversations.ts";
import { deskMessages, insertMessage, messageJson, withdrawMessage } from "../store/messages.ts";
import { FILES_BUCKET } from "../store/files.ts";
import { recordFiles, storeFiles, voiceSeconds } from "../attachments.ts";
import { idParam, readBody, readMessageInput } from "./common.ts";

type C = Context<SupportEnv>;

/** Choices an agent (or the desk's bot) offers: `{ items: [{ title, value }] }`, each text. */
function offeredItems(attributes: unknown): { title: string; value: string }[] | undefined {
  const items = (attributes as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items) || !items.length || items.length > 20) return undefined;
  const out = [];
  for (const item of items) {
    const title = item?.title, value = item?.value ?? item?.title;
    if (typeof title !== "string" || !title || title.length > 255) return undefined;
    if (typeof value !== "string" || value.length > 255) return undefined;
    out.push({ title, value });
  }
  return out;
}

export function conversationRoutes(ctx: FunctionContext) {
  async function rowOf(c: C) {
    const row = await conversationRow(ctx.sql, idParam(c, "id", "Conversation"));
    if (!row) throw notFound("Conversation");
    return row;
  }

  return {
    async list(c: C) {
      const filters = listFilters(c.req.query());
      if ("problem" in filters) throw badRequest(filters.problem);
      const { meta, payload } = await deskConversations(ctx.sql, {
        ...filters,
        agentId: c.get("agent").agentId,
        size: LIMITS.conversationsPage,
      });
      for (const conversation of payload) await signConversationFiles(ctx, conversation);
      return c.json(conversationListBody(meta, payload), 200);
    },

    async get(c: C) {
      const conversation = await conversationJson(ctx.sql, (await rowOf(c)).id, true);
      return c.json(await signConversationFiles(ctx, conversation!), 200);
    },

    async messages(c: C) {
      const row = await rowOf(c);
      const beforeText = c.req.query("before");
      if (beforeText !== undefined && !/^\d{1,15}$/.test(beforeText)) throw badRequest("before must be a message id.");
      const conversation = (await conversationJson(ctx.sql, row.id, false))!;
      const messages = await deskMessages(ctx.sql, row.id, beforeText ? Number(beforeText) : null, 100);
      for (const message of messages) await signMessageFiles(ctx, message);
      return c.json(
        messageListBody({
          labels: conversation.labels,
          additional_attributes: conversation.additional_attributes,
          contact: conversation.meta.sender,
          assignee: conversation.meta.assignee,
          agent_last_seen_at: conversation.agent_last_seen_at,
          assignee_last_seen_at: conversation.assignee_last_seen_at,
        }, messages),
        200,
      );
    },

    async reply(c: C) {
      const row = await rowOf(c);
      const { fields: body, files } = await readMessageInput(c);
      const problem = agentLineProblem(body, files.length > 0);
      if (problem) throw unprocessable(problem);
      let contentType: "text" | "input_select" = "text";
      let contentAttributes: Record<string, unknown> = {};
      if (body.content_type !== undefined && body.content_type !== "text") {
        const items = body.content_type === "input_select" ? offeredItems(body.content_attributes) : undefined;
        if (!items) throw unprocessable("content_type must be text, or input_select with content_attributes.items.");
        contentType = "input_select";
        contentAttributes = { items };
      }
      const seconds = voiceSeconds(body);
      const stored = await storeFiles(ctx, row.id, files, seconds);
      if (seconds !== undefined && stored.some((f) => f.fileType === "audio")) {
        contentAttributes = { ...contentAttributes, kind: "voice", seconds };
      }
      const message = await ctx.sql.begin(async (tx) => {
        const line = await insertMessage(tx, {
          conversationId: row.id,
          type: 1,
          content: (body.content as string) || null,
          agentId: c.get("agent").agentId,
          echoId: typeof body.echo_id === "string" ? body.echo_id.slice(0, 255) : null,
          contentType,
          contentAttributes,
        });
        if (!stored.length) return line;
        await recordFiles(tx, line.id, stored);
        return (await messageJson(tx, line.id))!;
      });
      return c.json(await signMessageFiles(ctx, message), 200);
    },

    async withdraw(c: C) {
      const row = await rowOf(c);
      const id = idParam(c, "messageId", "Message");
      const withdrawn = await ctx.sql.begin((tx) => withdrawMessage(tx, row.id, id));
      if (!withdrawn) throw notFound("Message");
      for (const key of withdrawn.storageKeys) await ctx.storage.delete(FILES_BUCKET, key);
      return c.json(withdrawn.message, 200);
    },

    async toggleStatus(c: C) {
      const row = await rowOf(c);
      const body = await readBody(c);
      if (body.status !== undefined && body.status !== null && !isStatus(body.status)) {
        throw unprocessable("status must be open, pending or resolved.");
      }
      const next = deskToggle(row.status, isStatus(body.status) ? body.status : undefined);
      await setStatus(ctx.sql, row.id, next);
      return c.json({
        meta: {},
        payload: { success: true, current_status: next, conversation_id: row.id, snoozed_until: null },
      }, 200);
    },

    async assign(c: C) {
      const row = await rowOf(c);
      const body = await readBody(c);
      const wanted = body.assignee_id;
      if (wanted === null || wanted === undefined || wanted === 0 || wanted === "0" || wanted === "") {
        await assign(ctx.sql, row.id, null);
        return c.json(null, 200);
      }
      const id = typeof wanted === "number" ? wanted : typeof wanted === "string" && /^\d{1,15}$/.test(wanted) ? Number(wanted) : NaN;
      const agent = Number.isSafeInteger(id) ? await deskAgent(ctx.sql, id) : undefined;
      if (!agent) throw unprocessable("No such agent on the desk.");
      await assign(ctx.sql, row.id, id);
      return c.json(agent, 200);
    },

    /** Replaces the thread's custom attributes (Chatwoot's), which the desk's webhooks report as conversation_updated. */
    async attributes(c: C) {
      const row = await rowOf(c);
      const body = await readBody(c);
      const attributes = body.custom_attributes;
      if (!attributes || typeof attributes !== "object" || Array.isArray(attributes)) {
        throw unprocessable("custom_attributes must be an object.");
      }
      if (JSON.stringify(attributes).length > 16_384) throw unprocessable("custom_attributes is too large.");
      await setConversationAttributes(ctx.sql, row.id, attributes as Record<string, unknown>);
      return c.json({ custom_attributes: attributes }, 200);
    },

    async typing(c: C) {
      const row = await rowOf(c);
      const body = await readBody(c);
      const on = typingOn(body.typing_status ?? c.req.query("typing_status"));
      if (on === undefined) throw unprocessable("typing_status must be on or off.");
      await signalTyping(ctx.sql, row.id, on, "user", c.get("agent").agentId);
      return c.body(null, 200);
    },

    async read(c: C) {
      const row = await rowOf(c);
      await markSeen(ctx.sql, row.id, "agent", ctx.clock.now());
      return c.json((await conversationJson(ctx.sql, row.id, false))!, 200);
    },
  };
}
