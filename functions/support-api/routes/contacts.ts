// The application API's contacts: by last seen, one with its count, and its conversations. The contact's
// token is never shown to the desk.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { SupportEnv } from "../access.ts";
import { pageNumber } from "../domain/conversations.ts";
import { LIMITS } from "../domain/limits.ts";
import { badRequest, contactListBody, notFound, payloadBody } from "../envelope.ts";
import { signConversationFiles } from "../files.ts";
import { contactExists, deskContact, deskContacts } from "../store/contacts.ts";
import { conversationsOfContact } from "../store/conversations.ts";
import { idParam } from "./common.ts";

type C = Context<SupportEnv>;

export function contactRoutes(ctx: FunctionContext) {
  return {
    async list(c: C) {
      const page = pageNumber(c.req.query("page"));
      if (page === undefined) throw badRequest("page must be a whole number from 1.");
      const { count, payload } = await deskContacts(ctx.sql, page, LIMITS.contactsPage);
      return c.json(contactListBody(count, page, payload), 200);
    },
    async get(c: C) {
      const contact = await deskContact(ctx.sql, idParam(c, "id", "Contact"));
      if (!contact) throw notFound("Contact");
      return c.json(payloadBody(contact), 200);
    },
    async conversations(c: C) {
      const id = idParam(c, "id", "Contact");
      if (!await contactExists(ctx.sql, id)) throw notFound("Contact");
      const conversations = await conversationsOfContact(ctx.sql, id);
      for (const conversation of conversations) await signConversationFiles(ctx, conversation);
      return c.json(payloadBody(conversations), 200);
    },
  };
}
