-- Network reads at the speed of a page: the community policies asked per row whether the reader is a
-- member and whether the author is suspended, each time through a security-definer function (planned
-- and run per row: about a millisecond a row on a busy machine). The same rules, asked once per
-- statement instead: who is suspended, who joined the wider network, whether the reader is a member and
-- which channels are theirs come from uncorrelated subqueries (evaluated once, as init plans), and the
-- rows are then checked against those answers.

-- Everybody suspended (few), and everybody who joined the wider network and is not suspended.
create or replace function public.network_suspended_people() returns uuid[]
language sql stable security definer set search_path = public as $$
  select coalesce(array_agg(id), '{}') from public.profiles where suspended_at is not null
$$;

create or replace function public.network_joined_people() returns uuid[]
language sql stable security definer set search_path = public as $$
  select coalesce(array_agg(id), '{}') from public.profiles where network_did is not null and suspended_at is null
$$;

-- The feed and chat channels of the spaces the caller belongs to (not suspended there).
create or replace function public.network_my_channels() returns uuid[]
language sql stable security definer set search_path = public as $$
  select coalesce(array_agg(c.id), '{}')
  from public.community_channels c
  join public.community_space_members m on m.space_id = c.space_id and m.person_id = auth.uid() and m.suspended_at is null
  join public.profiles p on p.id = m.person_id and p.suspended_at is null
$$;

grant execute on function public.network_suspended_people(), public.network_joined_people(), public.network_my_channels()
  to anon, authenticated, service_role;

drop policy "readers see posts whose audience includes them" on public.community_posts;
create policy "readers see posts whose audience includes them" on public.community_posts
  for select to anon, authenticated using (
    not (author_id = any ((select public.network_suspended_people())::uuid[]))
    and (audience = 'everyone' or (select public.network_is_member()))
  );

-- "a person the reader may see": a member sees everybody not suspended; anybody sees who joined
drop policy "readers see likes of the posts they see" on public.community_likes;
create policy "readers see likes of the posts they see" on public.community_likes
  for select to anon, authenticated using (
    (((select public.network_is_member()) and not (author_id = any ((select public.network_suspended_people())::uuid[])))
      or author_id = any ((select public.network_joined_people())::uuid[]))
    and exists (select 1 from public.community_posts p where p.id = post_id)
  );

drop policy "readers see reposts of the posts they see" on public.community_reposts;
create policy "readers see reposts of the posts they see" on public.community_reposts
  for select to anon, authenticated using (
    (((select public.network_is_member()) and not (author_id = any ((select public.network_suspended_people())::uuid[])))
      or author_id = any ((select public.network_joined_people())::uuid[]))
    and exists (select 1 from public.community_posts p where p.id = post_id)
  );

drop policy "readers see follows between people they see" on public.community_follows;
create policy "readers see follows between people they see" on public.community_follows
  for select to anon, authenticated using (
    (((select public.network_is_member()) and not (author_id = any ((select public.network_suspended_people())::uuid[])))
      or author_id = any ((select public.network_joined_people())::uuid[]))
    and (((select public.network_is_member()) and not (subject_id = any ((select public.network_suspended_people())::uuid[])))
      or subject_id = any ((select public.network_joined_people())::uuid[]))
  );

drop policy "readers see blocks between people they see" on public.community_blocks;
create policy "readers see blocks between people they see" on public.community_blocks
  for select to anon, authenticated using (
    (((select public.network_is_member()) and not (author_id = any ((select public.network_suspended_people())::uuid[])))
      or author_id = any ((select public.network_joined_people())::uuid[]))
    and (((select public.network_is_member()) and not (subject_id = any ((select public.network_suspended_people())::uuid[])))
      or subject_id = any ((select public.network_joined_people())::uuid[]))
  );

drop policy "members see their own mutes" on public.community_mutes;
create policy "members see their own mutes" on public.community_mutes
  for select to authenticated using (person_id = (select auth.uid()));

drop policy "members see the messages of their spaces" on public.community_messages;
create policy "members see the messages of their spaces" on public.community_messages
  for select to authenticated using (channel_id = any ((select public.network_my_channels())::uuid[]));

drop policy "members see their own notifications" on public.community_notifications;
create policy "members see their own notifications" on public.community_notifications
  for select to authenticated using (
    recipient_id = (select auth.uid())
    and (((select public.network_is_member()) and not (actor_id = any ((select public.network_suspended_people())::uuid[])))
      or actor_id = any ((select public.network_joined_people())::uuid[]))
  );

-- Everybody the caller may see: whether the caller is a member is asked once, not once per person.
create or replace function public.network_people()
returns table (
  id uuid, name text, username text, display_name text, description text,
  avatar_cid text, avatar_mime text, banner_cid text, banner_mime text,
  network_did text, network_profile jsonb, network_profile_cid text, created_at timestamptz
)
language sql stable security definer set search_path = public as $$
  select p.id, public.network_name(p.username, p.id), p.username, p.display_name, p.description,
         p.avatar_cid, p.avatar_mime, p.banner_cid, p.banner_mime,
         p.network_did, p.network_profile, p.network_profile_cid, p.created_at
  from public.profiles p
  where p.suspended_at is null and (p.network_did is not null or (select public.network_is_member()))
$$;
