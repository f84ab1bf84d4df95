// A contact's line, with its guards and the one acknowledgement: the client API's messages route and the
// widget's own door (a taken choice) both post through here, inside their transaction.
import type { FunctionContext } from "../../shared/context.ts";
import type { Db } from "../../shared/db.ts";
import { readSiteSettings } from "../../shared/site.ts";
import { deskSettings } from "./domain/desk.ts";
import { LIMITS } from "./domain/limits.ts";
import { contactLineProblem } from "./domain/lines.ts";
import { tooMany, unprocessable } from "./envelope.ts";
import { takeLineTurn } from "./store/contacts.ts";
import { claimAcknowledgement } from "./store/conversations.ts";
import { insertMessage, type MessageJson, messageJson } from "./store/messages.ts";
import { recordFiles, type StoredFile } from "./attachments.ts";

/**
 * Writes the contact's line, then, when it is the conversation's first, the acknowledgement (message_type
 * 2). Answers both, the contact's first. Refuses an empty line or one over 4000 characters (422) and a
 * second line within a second (429).
 */
export async function postContactLine(
  ctx: FunctionContext,
  db: Db,
  input: {
    contactId: number;
    conversationId: number;
    content: string;
    echoId?: string | null;
    contentAttributes?: Record<string, unknown>;
    acknowledgement?: string;
    /** files already in storage (attachments.ts storeFiles); a voice note's `seconds` */
    files?: StoredFile[];
    seconds?: number;
  },
): Promise<MessageJson[]> {
  const files = input.files ?? [];
  const problem = contactLineProblem(input.content, files.length > 0);
  if (problem) throw unprocessable(problem);
  if (!await takeLineTurn(db, input.contactId, ctx.clock.now(), LIMITS.lineEverySeconds)) {
    throw tooMany("One line a second: wait a moment and send it again.", LIMITS.lineEverySeconds);
  }
  const voice = input.seconds !== undefined && files.some((f) => f.fileType === "audio");
  let line = await insertMessage(db, {
    conversationId: input.conversationId,
    type: 0,
    content: input.content || null,
    contactId: input.contactId,
    echoId: input.echoId,
    contentAttributes: { ...input.contentAttributes, ...(voice ? { kind: "voice", seconds: input.seconds } : {}) },
  });
  if (files.length) {
    await recordFiles(db, line.id, files);
    line = (await messageJson(db, line.id))!;
  }
  const answered = [line];
  if (await claimAcknowledgement(db, input.conversationId, ctx.clock.now())) {
    const text = input.acknowledgement ?? deskSettings((await readSiteSettings(db))!).acknowledgement;
    answered.push(await insertMessage(db, { conversationId: input.conversationId, type: 2, content: text }));
  }
  return answered;
}
