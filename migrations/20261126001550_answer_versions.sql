-- Answer versions: what lets a function keep the answers of its hot reads in memory and still never serve
-- one a change has made stale, on any instance. Each scope's version is a row that the change's own
-- transaction bumps (a trigger on the tables the answers are built from), so it becomes visible exactly
-- when the change does: a read whose admission (shared/gate.ts, the same round trip that checks the key
-- and counts the rate windows) sees version n serves only answers built at n or later. The bump also
-- notifies channel `answer_versions` ("<scope> <version>") on commit, so every listening instance drops
-- the answers of older versions at once instead of waiting for them to age out; correctness never
-- depends on the notification arriving (a pooler without LISTEN, a lost connection).
--
-- Scopes: `site` (the settings row: admission re-reads it only when this moved), `content:published`
-- (what Delivery serves) and `content:preview` (what Preview serves: drafts too).

create table public.answer_versions (
  scope text primary key,
  version bigint not null default 0
);
alter table public.answer_versions enable row level security;
-- no policies: only the service role reads or bumps versions (the revoke undoes a platform's default
-- grants on new tables, as rls_hardening does for the others)
revoke all on public.answer_versions from anon, authenticated;
grant all on public.answer_versions to service_role;

insert into public.answer_versions (scope) values ('site'), ('content:published'), ('content:preview')
on conflict do nothing;

-- Bumps the scopes (in one order, so two changing transactions never wait on each other crosswise)
-- and notifies each new version.
create or replace function public.bump_answer_versions(p_scopes text[]) returns void
language plpgsql security definer set search_path = public as $$
declare
  bumped record;
begin
  for bumped in
    with ordered as (
      select scope from public.answer_versions where scope = any(p_scopes) order by scope for update
    )
    update public.answer_versions v set version = v.version + 1
    from ordered where v.scope = ordered.scope
    returning v.scope, v.version
  loop
    perform pg_notify('answer_versions', bumped.scope || ' ' || bumped.version);
  end loop;
end
$$;

-- Entries: a change of a published row changes what Delivery serves; any change changes Preview
-- (which serves the latest state of every entry). Statement-level, so an import bumps once, not once per row;
-- a statement that changed no row bumps nothing.
create or replace function public.content_entries_answer_versions() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if not exists (select 1 from changed) then
    return null;
  end if;
  perform public.bump_answer_versions(
    case when exists (select 1 from changed where stage = 'published')
      then array['content:preview', 'content:published']
      else array['content:preview'] end);
  return null;
end
$$;

-- Assets, content types: both stages serve them.
create or replace function public.content_answer_versions() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if not exists (select 1 from changed) then
    return null;
  end if;
  perform public.bump_answer_versions(array['content:preview', 'content:published']);
  return null;
end
$$;

-- The site settings (name, locales, modes, configuration): every answer depends on them.
create or replace function public.site_answer_versions() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if not exists (select 1 from changed) then
    return null;
  end if;
  perform public.bump_answer_versions(array['content:preview', 'content:published', 'site']);
  return null;
end
$$;

-- a trigger with a transition table answers one event, hence three per table
create trigger content_entries_versions_insert after insert on public.content_entries
  referencing new table as changed for each statement execute function public.content_entries_answer_versions();
create trigger content_entries_versions_update after update on public.content_entries
  referencing new table as changed for each statement execute function public.content_entries_answer_versions();
create trigger content_entries_versions_delete after delete on public.content_entries
  referencing old table as changed for each statement execute function public.content_entries_answer_versions();

create trigger content_assets_versions_insert after insert on public.content_assets
  referencing new table as changed for each statement execute function public.content_answer_versions();
create trigger content_assets_versions_update after update on public.content_assets
  referencing new table as changed for each statement execute function public.content_answer_versions();
create trigger content_assets_versions_delete after delete on public.content_assets
  referencing old table as changed for each statement execute function public.content_answer_versions();

create trigger content_models_versions_insert after insert on public.content_models
  referencing new table as changed for each statement execute function public.content_answer_versions();
create trigger content_models_versions_update after update on public.content_models
  referencing new table as changed for each statement execute function public.content_answer_versions();
create trigger content_models_versions_delete after delete on public.content_models
  referencing old table as changed for each statement execute function public.content_answer_versions();

create trigger site_settings_versions_insert after insert on public.site_settings
  referencing new table as changed for each statement execute function public.site_answer_versions();
create trigger site_settings_versions_update after update on public.site_settings
  referencing new table as changed for each statement execute function public.site_answer_versions();
create trigger site_settings_versions_delete after delete on public.site_settings
  referencing old table as changed for each statement execute function public.site_answer_versions();

-- the trigger functions act as their owner; nobody calls them directly
revoke execute on function public.bump_answer_versions(text[]) from public, anon, authenticated;
revoke execute on function public.content_entries_answer_versions() from public, anon, authenticated;
revoke execute on function public.content_answer_versions() from public, anon, authenticated;
revoke execute on function public.site_answer_versions() from public, anon, authenticated;

-- Rate-limit counters are written by every request: as an unlogged table they write no WAL, so a
-- request's count commits without waiting for a disk flush (on a server that flush was most of an
-- admission's time). What that gives up is harmless for counters: after a crash they start from zero,
-- and a standby has none (every instance counts on the primary, where admission runs).
alter table public.rate_limit_counters set unlogged;
