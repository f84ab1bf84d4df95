// A booking's chat grant (scheduling_chat_grants, written by the scheduling function): its attendee,
// signed in (the account contact is verified, so its address is the person's), may open a thread about
// the booking, assigned to the booking's first host who is on the desk.
import type { Db } from "../../../shared/db.ts";
import type { ContactRow } from "./contacts.ts";

export async function grantedBooking(
  db: Db,
  contact: ContactRow,
  bookingUid: unknown,
): Promise<{ bookingId: number; hostAgentId: number | null } | undefined> {
  if (!contact.verified || !contact.email || typeof bookingUid !== "string" || bookingUid.length > 255) return undefined;
  const [row] = await db<{ booking_id: number; agent_id: number | null }[]>`
    select g.booking_id,
           (select a.id from unnest(g.host_emails) with ordinality as h(email, n)
              join public.profiles p on lower(p.email) = h.email and p.role in ('admin', 'support')
              join public.support_agents a on a.person_id = p.id
            order by h.n limit 1) as agent_id
    from public.scheduling_chat_grants g join public.scheduling_bookings b on b.id = g.booking_id
    where b.uid = ${bookingUid} and g.attendee_email = lower(${contact.email}) and g.revoked_at is null`;
  return row ? { bookingId: row.booking_id, hostAgentId: row.agent_id } : undefined;
}
