-- The scheduling function keeps its catalogue (hosts from the site settings, event types from the
-- published session records) per process under site_settings.updated_at, the stamp every per-process
-- cache of the site is keyed by. An import or a settings change moves the stamp already; this trigger
-- moves it when a published session record is written, so a session changed through the management
-- API (cloud mode) or straight in SQL is seen by the next request of every instance.

create or replace function public.scheduling_bump_catalogue_stamp() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  -- clock_timestamp(): a second write in the same transaction still moves the stamp past the first
  update public.site_settings set updated_at = greatest(clock_timestamp(), updated_at + interval '1 microsecond');
  return null;
end
$$;
revoke all on function public.scheduling_bump_catalogue_stamp() from public, anon, authenticated;

create trigger content_entries_session_stamp_insert after insert on public.content_entries
  for each row when (new.model_id = 'session' and new.stage = 'published')
  execute function public.scheduling_bump_catalogue_stamp();
create trigger content_entries_session_stamp_update after update on public.content_entries
  for each row when ((new.model_id = 'session' and new.stage = 'published')
                     or (old.model_id = 'session' and old.stage = 'published'))
  execute function public.scheduling_bump_catalogue_stamp();
create trigger content_entries_session_stamp_delete after delete on public.content_entries
  for each row when (old.model_id = 'session' and old.stage = 'published')
  execute function public.scheduling_bump_catalogue_stamp();
