// A member's records as com.atproto.repo reads answer them. The profile record is the one an app last
// wrote; until one has, there is none (as on a new account elsewhere), so an app's read-modify-write of
// the profile starts from nothing and its swap holds. The site's profile still shows in getProfile.
import type { Hydrator } from "./hydrate.ts";
import { recordCid } from "../records.ts";

export async function profileRecordOf(h: Hydrator, person: string): Promise<{ cid: string; record: Record<string, unknown> } | undefined> {
  const actor = h.actors.get(person);
  if (!actor?.network_profile) return undefined;
  return { record: actor.network_profile, cid: actor.network_profile_cid ?? await recordCid(actor.network_profile) };
}
