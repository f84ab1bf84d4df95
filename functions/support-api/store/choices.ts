// SQL of the widget's door for an offer of choices: read the offer, mark it taken once.
import type { Db } from "../../../shared/db.ts";
import type { ChoiceItem } from "../domain/choices.ts";

export interface OfferRow {
  id: number;
  content_type: string;
  content_attributes: Record<string, unknown>;
}

/** The desk's line `id` of the conversation, locked until the transaction ends (two taps take it once). */
export async function lockOffer(db: Db, conversationId: number, id: number): Promise<OfferRow | undefined> {
  const [row] = await db<OfferRow[]>`
    select id, content_type, content_attributes from public.support_messages
    where id = ${id} and conversation_id = ${conversationId} and message_type = 1
    for update`;
  return row;
}

/** Records the choice as `taken` (the spec's) and `submitted_values` (Chatwoot's reading of it). */
export async function markTaken(db: Db, id: number, item: ChoiceItem): Promise<void> {
  await db`
    update public.support_messages
       set content_attributes = content_attributes || ${db.json({
    taken: item.value,
    submitted_values: [{ title: item.title, value: item.value }],
  } as never)}, updated_at = now()
     where id = ${id}`;
}
