-- Content's and the site's answer versions (migrations/20261126001550_answer_versions.sql) are bumped when
-- the changing transaction commits, as the held-time version already is
-- (migrations/20261126007200_scheduling_held_versions.sql), no longer at the end of each statement.
--
-- Why: a version row locked at a transaction's first write stayed locked to its commit. A transaction that
-- changed one entry and then wanted a row another writer held, while that writer's own statement waited
-- for the version row, closed a cycle, and Postgres ended one of the two with a deadlock error (a bulk edit
-- reaching an entry an editor was publishing at that moment). Taken last, at commit, the version row waits
-- for nothing after it and is held for the commit alone.
--
-- What readers see does not change: the bump is still made by the changing transaction and becomes visible
-- with its rows. Content writers no longer queue on the version row behind each other's whole
-- transactions; a sync delta never depended on that queue (its sequence numbers keep a delta from passing
-- a transaction in flight: tests/functions/content/sync-http.test.ts).
--
-- For later migrations: a transaction that changed rows of these tables cannot alter those tables until
-- their events have fired (`set constraints all immediate` fires them).

-- Bumps the scopes this transaction has not bumped yet, once each however many rows it changed. The
-- settings that remember it are local to the transaction and gone with it; each is named by its scope's
-- md5, as a scope may hold characters a setting's name may not.
create or replace function public.bump_answer_versions_once(p_scopes text[]) returns void
language plpgsql security definer set search_path = public as $$
declare
  scope text;
  pending text[] := '{}';
begin
  foreach scope in array p_scopes loop
    if current_setting('sitewire.answer_bumped_' || md5(scope), true) is distinct from 'on' then
      perform set_config('sitewire.answer_bumped_' || md5(scope), 'on', true);
      pending := pending || scope;
    end if;
  end loop;
  if cardinality(pending) > 0 then
    perform public.bump_answer_versions(pending);
  end if;
end
$$;

-- The held-time version's own once-a-transaction bump is now this one.
create or replace function public.bump_scheduling_held_once() returns void
language plpgsql security definer set search_path = public as $$
begin
  perform public.bump_answer_versions_once(array['scheduling:held']);
end
$$;

-- Entries: a published row changes what Delivery serves; any row changes Preview (the latest state of
-- every entry).
create or replace function public.content_entries_versions_at_commit() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  perform public.bump_answer_versions_once(
    case when (case when tg_op = 'DELETE' then old.stage else new.stage end) = 'published'
      then array['content:preview', 'content:published']
      else array['content:preview'] end);
  return null;
end
$$;

-- Assets, content types (both stages serve them) and the site settings (every answer depends on them):
-- the scopes are the trigger's arguments.
create or replace function public.answer_versions_at_commit() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  perform public.bump_answer_versions_once(tg_argv);
  return null;
end
$$;

drop trigger content_entries_versions_insert on public.content_entries;
drop trigger content_entries_versions_update on public.content_entries;
drop trigger content_entries_versions_delete on public.content_entries;
drop trigger content_assets_versions_insert on public.content_assets;
drop trigger content_assets_versions_update on public.content_assets;
drop trigger content_assets_versions_delete on public.content_assets;
drop trigger content_models_versions_insert on public.content_models;
drop trigger content_models_versions_update on public.content_models;
drop trigger content_models_versions_delete on public.content_models;
drop trigger site_settings_versions_insert on public.site_settings;
drop trigger site_settings_versions_update on public.site_settings;
drop trigger site_settings_versions_delete on public.site_settings;
drop function public.content_entries_answer_versions();
drop function public.content_answer_versions();
drop function public.site_answer_versions();

create constraint trigger content_entries_answer_versions
  after insert or update or delete on public.content_entries
  deferrable initially deferred for each row execute function public.content_entries_versions_at_commit();
create constraint trigger content_assets_answer_versions
  after insert or update or delete on public.content_assets
  deferrable initially deferred for each row
  execute function public.answer_versions_at_commit('content:preview', 'content:published');
create constraint trigger content_models_answer_versions
  after insert or update or delete on public.content_models
  deferrable initially deferred for each row
  execute function public.answer_versions_at_commit('content:preview', 'content:published');
create constraint trigger site_settings_answer_versions
  after insert or update or delete on public.site_settings
  deferrable initially deferred for each row
  execute function public.answer_versions_at_commit('content:preview', 'content:published', 'site');

-- the trigger functions act as their owner; nobody calls them directly
revoke execute on function public.bump_answer_versions_once(text[]) from public, anon, authenticated;
revoke execute on function public.content_entries_versions_at_commit() from public, anon, authenticated;
revoke execute on function public.answer_versions_at_commit() from public, anon, authenticated;
