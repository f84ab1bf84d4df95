// A reader's notifications (the policy shows only their own), with what each tells of: the like, repost,
// follow or post record, and the post it is about; in one statement per page.
import type { Db } from "../../../../shared/db.ts";
import type { FeedCursor } from "./feeds.ts";

export type Reason = "like" | "repost" | "follow" | "reply" | "quote";

export interface NotificationRow {
  id: number;
  actor_id: string;
  reason: Reason;
  rkey: string;
  cid: string;
  record: Record<string, unknown>;
  created_at: Date;
  at_us: number;
  is_read: boolean;
  /** the post a like, repost, reply or quote is about: always one of the reader's own */
  subject_rkey: string | null;
}

/**
 * Not about a thread the reader muted: the post a like, repost or quote is about, or a reply (by its
 * thread's root), is in it. `p` is the notification's own post, `sp` the post it is about.
 */
function outsideMutedThreads(db: Db, viewer: string) {
  return db`not exists (select 1 from public.community_thread_mutes t
    where t.person_id = ${viewer}::uuid and t.root_id in (sp.id, sp.reply_root_id, p.reply_root_id))`;
}

export async function notificationPage(
  db: Db,
  viewer: string,
  options: { limit: number; cursor?: FeedCursor; reasons: string[] },
): Promise<NotificationRow[]> {
  const at = db`timestamptz 'epoch' + interval '1 microsecond' * ${options.cursor?.atUs ?? 8e15}::bigint`;
  return await db<NotificationRow[]>`
    select n.id, n.actor_id, n.reason, n.created_at,
      (extract(epoch from n.created_at) * 1000000)::bigint as at_us,
      coalesce(l.rkey, r.rkey, f.rkey, p.rkey) as rkey,
      coalesce(l.cid, r.cid, f.cid, p.cid) as cid,
      coalesce(l.record, r.record, f.record, p.record) as record,
      n.created_at <= coalesce(s.notifications_seen_at, '-infinity') as is_read,
      sp.rkey as subject_rkey
    from public.community_notifications n
    left join public.community_likes l on l.id = n.like_id
    left join public.community_reposts r on r.id = n.repost_id
    left join public.community_follows f on f.id = n.follow_id
    left join public.community_posts p on p.id = n.post_id
    left join public.community_posts sp on sp.id = n.subject_post_id
    left join public.network_prefs s on s.person_id = ${viewer}::uuid
    where n.recipient_id = ${viewer}::uuid
      and (cardinality(${options.reasons}::text[]) = 0 or n.reason = any(${options.reasons}::text[]))
      and (n.created_at, n.id) < (${at}, ${options.cursor?.id ?? 0}::bigint)
      and coalesce(l.id, r.id, f.id, p.id) is not null
      and ${outsideMutedThreads(db, viewer)}
    order by n.created_at desc, n.id desc limit ${options.limit + 1}`;
}

export async function unreadCount(db: Db, viewer: string): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    select count(*)::int as count from public.community_notifications n
    left join public.community_posts p on p.id = n.post_id
    left join public.community_posts sp on sp.id = n.subject_post_id
    where n.recipient_id = ${viewer}::uuid and ${outsideMutedThreads(db, viewer)}
      and n.created_at > coalesce(
        (select s.notifications_seen_at from public.network_prefs s where s.person_id = ${viewer}::uuid), '-infinity')`;
  return row.count;
}

export async function seenAt(db: Db, viewer: string): Promise<Date | undefined> {
  const [row] = await db<{ at: Date | null }[]>`
    select notifications_seen_at as at from public.network_prefs where person_id = ${viewer}::uuid`;
  return row?.at ?? undefined;
}

export async function markSeen(db: Db, viewer: string, at: Date): Promise<void> {
  await db`insert into public.network_prefs (person_id, notifications_seen_at) values (${viewer}, ${at})
    on conflict (person_id) do update set notifications_seen_at = excluded.notifications_seen_at, updated_at = now()`;
}
