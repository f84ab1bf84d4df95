// A member's records as com.atproto.repo reads answer them. The profile record is the one an app last
// wrote, else one made from the site's profile (display name and description).
import { graphemes, type Hydrator } from "./hydrate.ts";
import { PROFILE, recordCid } from "../records.ts";

export async function profileRecordOf(h: Hydrator, person: string): Promise<{ cid: string; record: Record<string, unknown> } | undefined> {
  const actor = h.actors.get(person);
  if (!actor) return undefined;
  if (actor.network_profile) {
    return { record: actor.network_profile, cid: actor.network_profile_cid ?? await recordCid(actor.network_profile) };
  }
  const record: Record<string, unknown> = { $type: PROFILE };
  if (actor.display_name) record.displayName = graphemes(actor.display_name, 64);
  if (actor.description) record.description = graphemes(actor.description, 256);
  return { record, cid: await recordCid(record) };
}
