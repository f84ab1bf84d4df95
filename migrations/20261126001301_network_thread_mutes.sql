-- Thread mutes (app.bsky.graph.muteThread): a member silences the notifications of a thread, its root post
-- and every reply under it. Private like actor mutes: no record, only the member sees or changes theirs,
-- and only for a post they may see. The protocol server writes them as the reader, so these policies decide.

create table public.community_thread_mutes (
  person_id uuid not null references public.profiles (id) on delete cascade,
  root_id bigint not null references public.community_posts (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (person_id, root_id)
);
alter table public.community_thread_mutes enable row level security;
create index community_thread_mutes_root on public.community_thread_mutes (root_id);

create policy "members see their own thread mutes" on public.community_thread_mutes
  for select to authenticated using (person_id = (select auth.uid()));
-- the posts table's own policy decides whether the member may see the thread's root
create policy "members mute threads they see" on public.community_thread_mutes
  for insert to authenticated with check (
    person_id = (select auth.uid()) and exists (select 1 from public.community_posts p where p.id = root_id)
  );
create policy "members unmute threads" on public.community_thread_mutes
  for delete to authenticated using (person_id = (select auth.uid()));

revoke all on public.community_thread_mutes from anon, authenticated;
grant select, insert, delete on public.community_thread_mutes to authenticated;
grant all on public.community_thread_mutes to service_role;
