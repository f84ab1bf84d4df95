-- Hardening found by the SQL tests (tests/sql). Safe to apply more than once.
--
-- 1. Supabase's default privileges grant ALL on every new table in public to anon and authenticated.
--    There a `grant select (columns)` adds nothing, so the column limits written beside the tables
--    (api_keys.hash, webhook_outbox.headers) would not hold, and TRUNCATE (which row-level security
--    does not cover) would be open to everyone. Revoke first, then grant exactly what each role needs;
--    on plain Postgres and PGlite this changes nothing.
-- 2. site_settings.config holds the whole configuration file, including declared webhooks and their
--    secrets, and anyone could read it. Readers get the public columns only; the functions read the
--    configuration as the service role.
-- 3. The content tombstone triggers ran with the privileges of whoever wrote the entry, so an
--    administrator writing entries or assets "as the reader" was refused on content_tombstones.
--    Tombstones are bookkeeping: the triggers now run as their owner.

-- 1. exact privileges for the tables whose columns or rows must stay with the service role
revoke all on public.api_keys, public.webhook_outbox, public.site_secrets, public.storage_objects,
  public.site_settings from anon, authenticated;
-- the rate-limit tables and functions of their time (later ones replace them and guard themselves:
-- 20261126008000_rate_limit_buckets.sql), left alone once gone so this file still applies again
do $$
begin
  if to_regclass('public.rate_limit_counters') is not null then
    revoke all on public.rate_limit_counters from anon, authenticated;
  end if;
  if to_regprocedure('public.rate_limit_hit(text, integer[], timestamptz)') is not null then
    -- counting hits is the functions' job (functions are executable by PUBLIC unless revoked)
    revoke execute on function public.rate_limit_hit(text, integer[], timestamptz) from public, anon, authenticated;
    grant execute on function public.rate_limit_hit(text, integer[], timestamptz) to service_role;
  end if;
end
$$;

grant select (id, name, kind, gated, prefix, created_by, created_at, last_used_at, revoked_at)
  on public.api_keys to authenticated;
grant insert (name, kind, gated, prefix, hash, created_by) on public.api_keys to authenticated;
grant update (name, revoked_at) on public.api_keys to authenticated;

grant select (id, api, subscription_id, event, url, status, attempts, max_attempts, next_attempt_at,
  last_status, last_error, created_at, delivered_at) on public.webhook_outbox to authenticated;

-- 2. the public face of the site; config and source_dir stay with the service role
grant select (id, name, slug, domain, mode, modules, locales, imported_at, updated_at)
  on public.site_settings to anon, authenticated;
grant update (name, domain, modules, config, updated_at) on public.site_settings to authenticated;

do $$
begin
  if to_regclass('public.schema_migrations') is not null then
    revoke all on public.schema_migrations from anon, authenticated;
  end if;
end
$$;

-- TRUNCATE, REFERENCES and TRIGGER are outside row-level security: no reader needs them, on any
-- table of any area, now or later (default privileges for tables this role creates).
revoke truncate, references, trigger on all tables in schema public from anon, authenticated;
alter default privileges in schema public revoke truncate, references, trigger on tables from anon, authenticated;
do $$
begin
  if current_setting('server_version_num')::int >= 170000 then
    -- MAINTAIN (Postgres 17+) includes LOCK TABLE, VACUUM and REINDEX
    execute 'revoke maintain on all tables in schema public from anon, authenticated';
    execute 'alter default privileges in schema public revoke maintain on tables from anon, authenticated';
  end if;
end
$$;

-- 3. tombstones are written by the triggers as their owner, whoever changes the entry or asset
alter function public.content_entry_tombstone() security definer set search_path = public, pg_temp;
alter function public.content_asset_tombstone() security definer set search_path = public, pg_temp;
