// The client API (no key): contacts by their token and their own conversations, nested under the
// contact as Chatwoot's client routes are, so a conversation is reached only through its contact's secret.
// Mounted at /public/api/v1/inboxes and /public/api/desk/api/v1/inboxes; <inbox> is the site's space id.
import { Hono } from "hono";
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { clientAddress } from "../../../shared/http.ts";
import { randomBase62, sha256Hex } from "../../../shared/ids.ts";
import { spaceId } from "../../../shared/site.ts";
import { clientAccess, clientContactOf, sessionPerson, type SupportEnv } from "../access.ts";
import { contactChange, mergeAttributes } from "../domain/contacts.ts";
import { typingOn } from "../domain/conversations.ts";
import { deskSettings } from "../domain/desk.ts";
import { LIMITS } from "../domain/limits.ts";
import { contactLineProblem, echoId } from "../domain/lines.ts";
import { storeFiles, voiceSeconds } from "../attachments.ts";
import { clientContact, clientConversation } from "../domain/wire.ts";
import { badRequest, notFound, tooMany, unauthorized, unprocessable } from "../envelope.ts";
import { signConversationFiles, signMessageFiles } from "../files.ts";
import { postContactLine } from "../lines.ts";
import { accountContact, type ContactRow, createGuest, updateContact } from "../store/contacts.ts";
import {
  contactConversation,
  contactConversations,
  conversationJson,
  createConversation,
  markSeen,
  setStatus,
  signalTyping,
} from "../store/conversations.ts";
import { grantedBooking } from "../store/grants.ts";
import { countGuard } from "../store/guards.ts";
import { clientMessages } from "../store/messages.ts";
import { idParam, readBody, readMessageInput } from "./common.ts";

type C = Context<SupportEnv>;

export function clientRoutes(ctx: FunctionContext): Hono<SupportEnv> {
  const api = new Hono<SupportEnv>({ strict: false });
  api.use("*", clientAccess(ctx));
  api.use("/:inbox/*", async (c, next) => {
    if (c.req.param("inbox") !== spaceId(c.get("site"))) throw notFound("Inbox");
    await next();
  });

  const contactOf = (c: C) => clientContactOf(ctx, c);

  async function conversationOf(c: C, contact: ContactRow) {
    const row = await contactConversation(ctx.sql, contact.id, idParam(c, "cid", "Conversation"));
    if (!row) throw notFound("Conversation");
    return row;
  }

  async function answerConversation(id: number, pubsubToken: string) {
    const desk = await conversationJson(ctx.sql, id, true);
    if (!desk) throw notFound("Conversation");
    return clientConversation(await signConversationFiles(ctx, desk), pubsubToken);
  }

  // a guest (or, with the site's session, the person's account contact)
  api.post("/:inbox/contacts", async (c) => {
    const body = await readBody(c);
    const change = contactChange(body);
    if ("problem" in change) throw unprocessable(change.problem);
    const path = typeof body.path === "string" ? body.path.slice(0, 2048) : null;
    const token = randomBase62(32);
    const person = await sessionPerson(ctx, c.req.raw);
    let contact: ContactRow;
    if (person) {
      contact = await accountContact(ctx.sql, { personId: person, tokenHash: await sha256Hex(token), path });
      if (!contact) throw unauthorized("The session's person is not known here.");
    } else {
      const guard = await countGuard(
        ctx.sql,
        `support:guests:${clientAddress(c)}`,
        { seconds: 3600, limit: LIMITS.guestsPerHour },
        ctx.clock.now(),
      );
      if (guard.exceeded) {
        throw tooMany(`At most ${LIMITS.guestsPerHour} new contacts an hour from one address.`, guard.retryAfter);
      }
      contact = await createGuest(ctx.sql, {
        tokenHash: await sha256Hex(token),
        attributes: mergeAttributes({}, change),
        identifier: change.identifier,
        path,
      });
    }
    return c.json(clientContact(contact, token), 200);
  });

  api.get("/:inbox/contacts/:sid", async (c) => {
    const contact = await contactOf(c);
    return c.json(clientContact(contact, c.req.param("sid")), 200);
  });

  api.on(["PATCH", "PUT"], "/:inbox/contacts/:sid", async (c) => {
    const contact = await contactOf(c);
    const change = contactChange(await readBody(c));
    if ("problem" in change) throw unprocessable(change.problem);
    // an account contact's identifier is its person: a visitor's word does not replace it
    const updated = await updateContact(ctx.sql, contact.id, {
      attributes: mergeAttributes(contact.custom_attributes, change),
      identifier: contact.person_id ? undefined : change.identifier,
    });
    return c.json(clientContact(updated, c.req.param("sid")), 200);
  });

  api.get("/:inbox/contacts/:sid/conversations", async (c) => {
    const contact = await contactOf(c);
    const rows = await contactConversations(ctx.sql, contact.id);
    const answer = [];
    for (const row of rows) answer.push(clientConversation(await signConversationFiles(ctx, row.json), row.pubsub_token));
    return c.json(answer, 200);
  });

  api.post("/:inbox/contacts/:sid/conversations", async (c) => {
    const contact = await contactOf(c);
    const body = await readBody(c);
    const attributes = body.custom_attributes ?? {};
    if (typeof attributes !== "object" || attributes === null || Array.isArray(attributes)) {
      throw unprocessable("custom_attributes must be an object.");
    }
    const grant = body.booking_uid === undefined ? undefined : await grantedBooking(ctx.sql, contact, body.booking_uid);
    if (body.booking_uid !== undefined && !grant) {
      throw unprocessable("No chat access for that booking: it is not yours, or it was cancelled.");
    }
    const guard = await countGuard(
      ctx.sql,
      `support:threads:${contact.id}`,
      { seconds: 3600, limit: LIMITS.threadsPerHour },
      ctx.clock.now(),
    );
    if (guard.exceeded) throw tooMany(`At most ${LIMITS.threadsPerHour} new conversations an hour.`, guard.retryAfter);
    const desk = deskSettings(c.get("site"));
    const id = await ctx.sql.begin((tx) =>
      createConversation(tx, {
        contactId: contact.id,
        path: typeof body.path === "string" ? body.path.slice(0, 2048) : contact.last_path,
        source: typeof body.source === "string" ? body.source.slice(0, 255) : "widget",
        attributes: attributes as Record<string, unknown>,
        prompt: desk.prompt,
        bookingId: grant?.bookingId,
        assigneeId: grant?.hostAgentId,
      })
    );
    const row = await contactConversation(ctx.sql, contact.id, id);
    return c.json(await answerConversation(id, row!.pubsub_token), 200);
  });

  api.get("/:inbox/contacts/:sid/conversations/:cid", async (c) => {
    const row = await conversationOf(c, await contactOf(c));
    return c.json(await answerConversation(row.id, row.pubsub_token), 200);
  });

  api.get("/:inbox/contacts/:sid/conversations/:cid/messages", async (c) => {
    const row = await conversationOf(c, await contactOf(c));
    const text = c.req.query("after");
    let after: number | null = null;
    if (text !== undefined && text !== "") {
      if (!/^\d{1,12}(\.\d+)?$/.test(text)) throw badRequest("after must be a time in unix seconds.");
      after = Math.floor(Number(text));
    }
    const messages = await clientMessages(ctx.sql, row.id, after, LIMITS.clientMessages);
    for (const message of messages) await signMessageFiles(ctx, message);
    return c.json(messages, 200);
  });

  api.post("/:inbox/contacts/:sid/conversations/:cid/messages", async (c) => {
    const contact = await contactOf(c);
    const row = await conversationOf(c, contact);
    const { fields, files } = await readMessageInput(c);
    const echo = echoId(fields.echo_id);
    if (echo === undefined) throw unprocessable("echo_id must be a short string or a number.");
    const problem = contactLineProblem(fields.content, files.length > 0);
    if (problem) throw unprocessable(problem);
    const seconds = voiceSeconds(fields);
    const stored = await storeFiles(ctx, row.id, files, seconds);
    const desk = deskSettings(c.get("site"));
    const [line] = await ctx.sql.begin((tx) =>
      postContactLine(ctx, tx, {
        contactId: contact.id,
        conversationId: row.id,
        content: fields.content as string,
        echoId: echo,
        acknowledgement: desk.acknowledgement,
        files: stored,
        seconds,
      })
    );
    return c.json(await signMessageFiles(ctx, line), 200);
  });

  api.post("/:inbox/contacts/:sid/conversations/:cid/toggle_typing", async (c) => {
    const contact = await contactOf(c);
    const row = await conversationOf(c, contact);
    const body = await readBody(c);
    const on = typingOn(body.typing_status ?? c.req.query("typing_status"));
    if (on === undefined) throw unprocessable("typing_status must be on or off.");
    await signalTyping(ctx.sql, row.id, on, "contact", contact.id);
    return c.body(null, 200);
  });

  api.post("/:inbox/contacts/:sid/conversations/:cid/update_last_seen", async (c) => {
    const row = await conversationOf(c, await contactOf(c));
    await markSeen(ctx.sql, row.id, "contact", ctx.clock.now());
    return c.body(null, 200);
  });

  api.post("/:inbox/contacts/:sid/conversations/:cid/toggle_status", async (c) => {
    const row = await conversationOf(c, await contactOf(c));
    await setStatus(ctx.sql, row.id, "resolved");
    return c.json(await answerConversation(row.id, row.pubsub_token), 200);
  });

  return api;
}
