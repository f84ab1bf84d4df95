-- Cloud mode: "publish: live at once, pushed to the repository", "delete: removal published" (spec,
-- entries' states). A publish, unpublish or delete of an entry, and a file an asset takes into the
-- library or loses, are written back to the site's content directory (site_settings.source_dir, the
-- directory the site was imported from, so the next import reads what was pushed) and committed there
-- when it is a git work tree (shared/site/push.ts).
--
-- * content_pushes is a durable queue, written by triggers in the same transaction as the change, so a
--   change made in SQL by an administrator is pushed too, a rolled-back change pushes nothing, and a
--   process dying loses nothing. A worker (the dev host's, or POST /repository/push) claims rows with
--   SKIP LOCKED, retries with backoff and records last_error, as the webhook outbox does.
-- * A row says which entity changed and who changed it; the worker writes the entity's state as it is
--   when the push runs (so pushes that run late or twice still leave the directory right).
-- * Pushes are queued only in cloud mode, with a directory, unless the site's configuration says
--   `repository: { push: false }`; never for the import's own writes (they come from the directory).
-- * Once pushed, the worker marks the entry's rows `file` (migration 035): the directory now holds them
--   as the import reads them. That update changes nothing but the owner, so the triggers that report a
--   change (sync's change sequence, webhook events, pushes) are told here to ignore an owner-only update.

create table public.content_pushes (
  id bigint generated always as identity primary key,
  kind text not null check (kind in ('Entry', 'Asset')),
  entity_id text not null,
  action text not null check (action in ('publish', 'unpublish', 'delete')),
  -- the files the change concerns, relative to dir (an entry's record file; an asset's old and new path)
  paths text[] not null,
  dir text not null,
  -- who made the change: the person (content_actor()) and the management key, when one was used
  actor text,
  key_id text,
  status text not null default 'pending' check (status in ('pending', 'pushed', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  claimed_until timestamptz,
  last_error text,
  -- the commit made, when the directory is a git work tree and something changed
  commit text,
  created_at timestamptz not null default now(),
  pushed_at timestamptz
);
alter table public.content_pushes enable row level security;
create index content_pushes_due on public.content_pushes (next_attempt_at, id) where status = 'pending';
create index content_pushes_pending on public.content_pushes (kind, entity_id) where status = 'pending';

create policy "administrators read the push queue" on public.content_pushes
  for select to authenticated using (public.is_admin());
-- Supabase grants ALL on new tables to anon and authenticated: start from nothing, grant exactly
revoke all on public.content_pushes from anon, authenticated;
grant select on public.content_pushes to authenticated;
grant all on public.content_pushes to service_role;

-- The directory pushes go to, or null: not cloud mode, no directory, or switched off in site.yaml.
create or replace function public.content_push_dir() returns text
language sql stable as $$
  select s.source_dir from public.site_settings s
  where s.mode = 'cloud' and s.source_dir is not null
    and coalesce(s.config -> 'repository' ->> 'push', 'true') <> 'false'
$$;

create or replace function public.content_enqueue_push(push_kind text, entity text, push_action text, files text[])
returns void
language sql security definer set search_path = public, pg_temp as $$
  insert into public.content_pushes (kind, entity_id, action, paths, dir, actor, key_id)
  select push_kind, entity, push_action,
    array(select distinct f from unnest(files) f where f is not null order by f),
    target.dir, public.content_actor(), nullif(current_setting('sitewire.key', true), '')
  from (select public.content_push_dir() as dir) target
  where target.dir is not null and coalesce(current_setting('sitewire.writer', true), '') <> 'import'
$$;

-- Entries: a published row written is a publish; a published row removed while the draft stays an
-- unpublish; the draft removed a delete (the API removes both rows in one statement, so the published
-- row's trigger finds the draft gone already and stays quiet). A draft's own changes are not pushed:
-- the repository holds what was published, and what was unpublished.
create or replace function public.content_entry_push() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if tg_op = 'DELETE' then
    if old.stage = 'preview' then
      perform public.content_enqueue_push('Entry', old.id, 'delete', array[old.path]);
    elsif exists (select 1 from public.content_entries where stage = 'preview' and id = old.id) then
      perform public.content_enqueue_push('Entry', old.id, 'unpublish', array[old.path]);
    end if;
  else
    perform public.content_enqueue_push('Entry', new.id, 'publish',
      array[new.path, case when tg_op = 'UPDATE' then old.path end]);
  end if;
  return null;
end
$$;
create trigger content_entries_push_publish after insert on public.content_entries
  for each row when (new.stage = 'published') execute function public.content_entry_push();
create trigger content_entries_push_change after update on public.content_entries
  for each row when (new.stage = 'published' and (to_jsonb(old) - 'source') is distinct from (to_jsonb(new) - 'source'))
  execute function public.content_entry_push();
create trigger content_entries_push_remove after delete on public.content_entries
  for each row execute function public.content_entry_push();

-- Assets: a file in the library (inserted published, processed, replaced) is a publish; a file leaving
-- the library an unpublish or delete. A picture named by its address (http...) has no file to write.
create or replace function public.content_asset_push() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if tg_op = 'DELETE' then
    perform public.content_enqueue_push('Asset', old.id, 'delete', array[old.path]);
  elsif new.published then
    perform public.content_enqueue_push('Asset', new.id, 'publish',
      array[new.path, case when tg_op = 'UPDATE' and old.published then old.path end]);
  else
    perform public.content_enqueue_push('Asset', new.id, 'unpublish', array[old.path]);
  end if;
  return null;
end
$$;
create trigger content_assets_push_publish after insert on public.content_assets
  for each row when (new.published and new.path !~* '^https?://') execute function public.content_asset_push();
create trigger content_assets_push_change after update on public.content_assets
  for each row when ((old.published or new.published) and new.path !~* '^https?://'
    and (old.published, old.path, old.storage_key, old.content_hash)
      is distinct from (new.published, new.path, new.storage_key, new.content_hash))
  execute function public.content_asset_push();
create trigger content_assets_push_remove after delete on public.content_assets
  for each row when (old.published and old.path !~* '^https?://') execute function public.content_asset_push();

-- the dev host's worker wakes on this (the route and the poll need no wake-up)
create or replace function public.content_pushes_notify() returns trigger
language plpgsql as $$
begin
  perform pg_notify('content_push', new.id::text);
  return new;
end
$$;
create trigger content_pushes_notify after insert on public.content_pushes
  for each row execute function public.content_pushes_notify();

-- An update that only changes the owner (the push marking its rows `file`) is no change of content:
-- sync does not list the entry again, no webhook event is sent, nothing is pushed back.
drop trigger content_entries_change_seq on public.content_entries;
create trigger content_entries_change_seq before update on public.content_entries
  for each row when ((to_jsonb(old) - 'source') is distinct from (to_jsonb(new) - 'source'))
  execute function public.content_touch_change_seq();
drop trigger content_entries_events on public.content_entries;
create trigger content_entries_events after insert or delete on public.content_entries
  for each row execute function public.content_entry_events();
create trigger content_entries_events_update after update on public.content_entries
  for each row when ((to_jsonb(old) - 'source') is distinct from (to_jsonb(new) - 'source'))
  execute function public.content_entry_events();

-- the trigger functions and the queue writer act as their owner; nobody calls them directly
revoke execute on function public.content_enqueue_push(text, text, text, text[]), public.content_entry_push(),
  public.content_asset_push(), public.content_pushes_notify() from public, anon, authenticated;
