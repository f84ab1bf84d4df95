-- Content management (cloud mode) and content webhooks.
--
-- * content_meta: per entry / asset bookkeeping the management shape shows (createdBy, updatedBy,
--   publishedBy, firstPublishedAt, publishedAt, publishedCounter). Written only by the triggers below,
--   so a change made in the admin (SQL as a signed-in administrator) is recorded like an API change.
-- * content_assets.pending_file: the file an asset was given (an upload or an address) until it is
--   processed into the library.
-- * content_uploads: temporary holders of file bytes (the bytes live in storage, bucket `uploads`).
-- * content_webhook_definitions: subscriptions, `hand` (made through the API) or `file` (declared in
--   the site's configuration and kept in step with it by a trigger on site_settings).
-- * Management shapes are built here, in SQL, once: the webhook triggers need them inside the
--   writing transaction, and the management reads use the same functions, so both always agree.
-- * Events: triggers on content_entries and content_assets write webhook_outbox rows in the same
--   transaction as the change, only when an active definition's topics match.
--
-- Who made a change: the functions set `sitewire.actor` (the key's maker) for their transaction;
-- otherwise the signed-in person (auth.uid()). Where asset addresses point: the functions set
-- `sitewire.media_host` (their public host); a change made elsewhere falls back to the site's domain.

create table public.content_meta (
  kind text not null check (kind in ('Entry', 'Asset')),
  id text not null,
  created_by text,
  updated_by text,
  published_by text,
  first_published_at timestamptz,
  published_at timestamptz,
  published_counter integer not null default 0,
  primary key (kind, id)
);
alter table public.content_meta enable row level security;

alter table public.content_assets add column pending_file jsonb;

create table public.content_uploads (
  id text primary key,
  size bigint not null,
  content_type text not null,
  created_by text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
alter table public.content_uploads enable row level security;
create index content_uploads_expiry on public.content_uploads (expires_at);

create table public.content_webhook_definitions (
  id text primary key,
  name text not null,
  url text not null check (url ~* '^https?://'),
  topics text[] not null,
  -- [{key, value}] sent with every delivery and shown on reads
  headers jsonb not null default '[]'::jsonb,
  -- [{key, value}] sent with every delivery, never shown: added by the dispatcher at send time
  secret_headers jsonb not null default '[]'::jsonb,
  active boolean not null default true,
  source text not null default 'hand' check (source in ('hand', 'file')),
  version integer not null default 1,
  created_by text,
  updated_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_at timestamptz,
  last_status integer,
  last_error text
);
alter table public.content_webhook_definitions enable row level security;

-- ---- small helpers ----------------------------------------------------------------------------------

-- A definition's topic: `<Entry|Asset|*>.<create|save|publish|unpublish|delete|*>`.
create or replace function public.content_webhook_topic_valid(topic text) returns boolean
language sql immutable as $$
  select coalesce(topic ~ '^(Entry|Asset|\*)\.(create|save|publish|unpublish|delete|\*)$', false)
$$;

create or replace function public.content_webhook_topics_valid(topics text[]) returns boolean
language sql immutable as $$
  select cardinality(topics) > 0 and bool_and(public.content_webhook_topic_valid(t)) from unnest(topics) t
$$;

alter table public.content_webhook_definitions
  add constraint content_webhook_definitions_topics check (public.content_webhook_topics_valid(topics));

-- Does a definition with these topics want `<type>.<event>`? (`Type.event`, `Type.*`, `*.event`, `*.*`)
create or replace function public.content_webhook_matches(topics text[], type text, event text) returns boolean
language sql immutable as $$
  select topics && array[type || '.' || event, type || '.*', '*.' || event, '*.*']
$$;

-- Timestamps as the wire writes them (2025-01-15T10:00:00.000Z), whatever the session's time zone.
create or replace function public.content_iso(at timestamptz) returns text
language sql immutable as $$
  select to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- encodeURIComponent: asset addresses carry the file name.
create or replace function public.content_url_segment(value text) returns text
language sql immutable as $$
  select coalesce(string_agg(
    case when b between 48 and 57 or b between 65 and 90 or b between 97 and 122 or b in (33, 39, 40, 41, 42, 45, 46, 95, 126)
      then chr(b) else '%' || upper(lpad(to_hex(b), 2, '0')) end, '' order by i), '')
  from (select i, get_byte(convert_to(value, 'UTF8'), i) as b
        from generate_series(0, octet_length(convert_to(value, 'UTF8')) - 1) i) bytes
$$;

create or replace function public.content_link(link_type text, id text) returns jsonb
language sql immutable as $$
  select case when id is null then null
    else jsonb_build_object('sys', jsonb_build_object('type', 'Link', 'linkType', link_type, 'id', id)) end
$$;

create or replace function public.content_space_id() returns text
language sql stable as $$
  select coalesce(config -> 'api' ->> 'space', slug) from public.site_settings
$$;

create or replace function public.content_default_locale() returns text
language sql stable as $$
  select coalesce(
    (select l ->> 'code' from public.site_settings s, jsonb_array_elements(s.locales) l
      where (l ->> 'default')::boolean limit 1),
    (select s.locales -> 0 ->> 'code' from public.site_settings s),
    'en-US')
$$;

create or replace function public.content_actor() returns text
language sql stable as $$
  select coalesce(nullif(current_setting('sitewire.actor', true), ''), auth.uid()::text)
$$;

create or replace function public.content_media_host() returns text
language sql stable as $$
  select coalesce(nullif(current_setting('sitewire.media_host', true), ''), (select domain from public.site_settings))
$$;

-- ---- management shapes ------------------------------------------------------------------------------

-- An entry in the management shape, from its draft row, its published row (or nulls) and its meta.
-- sys.version is the draft's revision × 2, plus 1 while a draft is pending (never published, or the
-- draft's content differs from the published one).
create or replace function public.content_management_entry(
  p public.content_entries, b public.content_entries, m public.content_meta, space text
) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'metadata', jsonb_build_object('tags', '[]'::jsonb, 'concepts', '[]'::jsonb),
    'sys', jsonb_strip_nulls(jsonb_build_object(
      'type', 'Entry',
      'id', p.id,
      'space', public.content_link('Space', space),
      'environment', public.content_link('Environment', 'master'),
      'contentType', public.content_link('ContentType', p.model_id),
      'createdAt', public.content_iso(p.created_at),
      'updatedAt', public.content_iso(p.updated_at),
      'version', p.revision * 2 + case
        when b.id is null or (p.fields, p.access, p.model_id) is distinct from (b.fields, b.access, b.model_id)
        then 1 else 0 end,
      'publishedVersion', case when b.id is not null then b.revision * 2 end,
      'publishedAt', case when b.id is not null then public.content_iso(coalesce(m.published_at, b.updated_at)) end,
      'firstPublishedAt', public.content_iso(coalesce(m.first_published_at, b.created_at)),
      'publishedCounter', coalesce(m.published_counter, case when b.id is not null then 1 else 0 end),
      'createdBy', public.content_link('User', m.created_by),
      'updatedBy', public.content_link('User', m.updated_by),
      'publishedBy', case when b.id is not null then public.content_link('User', m.published_by) end)),
    'fields', p.fields)
$$;

create or replace function public.content_management_entry_by_id(entry_id text) returns jsonb
language sql stable as $$
  select public.content_management_entry(p, b, m, public.content_space_id())
  from public.content_entries p
  left join public.content_entries b on b.stage = 'published' and b.id = p.id
  left join public.content_meta m on m.kind = 'Entry' and m.id = p.id
  where p.stage = 'preview' and p.id = entry_id
$$;

-- An asset in the management shape. Its one file sits under the default locale: the pending file (an
-- upload link or an address, no url yet) until processed, then the library file on the image door.
-- sys.version is the revision × 2, plus 1 while a file waits to be processed.
create or replace function public.content_management_asset(
  a public.content_assets, m public.content_meta, space text, media_host text, locale text
) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'metadata', jsonb_build_object('tags', '[]'::jsonb, 'concepts', '[]'::jsonb),
    'sys', jsonb_strip_nulls(jsonb_build_object(
      'type', 'Asset',
      'id', a.id,
      'space', public.content_link('Space', space),
      'environment', public.content_link('Environment', 'master'),
      'createdAt', public.content_iso(a.created_at),
      'updatedAt', public.content_iso(a.updated_at),
      'version', a.revision * 2 + case when a.pending_file is not null then 1 else 0 end,
      'publishedVersion', case when a.published then a.revision * 2 end,
      'publishedAt', case when a.published then public.content_iso(coalesce(m.published_at, a.updated_at)) end,
      'firstPublishedAt', public.content_iso(coalesce(m.first_published_at, case when a.published then a.created_at end)),
      'publishedCounter', coalesce(m.published_counter, case when a.published then 1 else 0 end),
      'createdBy', public.content_link('User', m.created_by),
      'updatedBy', public.content_link('User', m.updated_by),
      'publishedBy', case when a.published then public.content_link('User', m.published_by) end)),
    'fields', jsonb_strip_nulls(jsonb_build_object(
      'title', case when a.title <> '{}'::jsonb then a.title end,
      'description', case when a.description <> '{}'::jsonb then a.description end,
      'file', jsonb_build_object(locale, case
        when a.pending_file is not null then a.pending_file
        when a.published then jsonb_build_object(
          'url', case when a.path ~* '^https?://' then a.path
            else '//' || media_host || '/api/media/' || public.content_url_segment(space) || '/' || a.id || '/'
              || a.content_hash || '/' || public.content_url_segment(a.file_name) end,
          'details', jsonb_build_object('size', a.size) || case when a.width is not null and a.height is not null
            then jsonb_build_object('image', jsonb_build_object('width', a.width, 'height', a.height))
            else '{}'::jsonb end,
          'fileName', a.file_name,
          'contentType', a.content_type)
        end))))
$$;

create or replace function public.content_management_asset_by_id(asset_id text, media_host text) returns jsonb
language sql stable as $$
  select public.content_management_asset(a, m, public.content_space_id(), media_host, public.content_default_locale())
  from public.content_assets a
  left join public.content_meta m on m.kind = 'Asset' and m.id = a.id
  where a.id = asset_id
$$;

-- ---- events -----------------------------------------------------------------------------------------

-- The body of a delete event: DeletedEntry or DeletedAsset, as sync shows a removal.
create or replace function public.content_deleted_body(type text, id text, model_id text, revision integer, created_at timestamptz)
returns jsonb
language sql stable as $$
  select jsonb_build_object('sys', jsonb_strip_nulls(jsonb_build_object(
    'type', 'Deleted' || type, 'id', id,
    'space', public.content_link('Space', public.content_space_id()),
    'environment', public.content_link('Environment', 'master'),
    'contentType', public.content_link('ContentType', model_id),
    'revision', revision,
    'createdAt', public.content_iso(created_at),
    'updatedAt', public.content_iso(now()),
    'deletedAt', public.content_iso(now()))))
$$;

-- Writes one outbox row per active definition that wants `<type>.<event>`. Secret headers are not
-- written here: the content adapter adds them at send time.
create or replace function public.content_enqueue_event(type text, event text, body jsonb) returns void
language sql as $$
  insert into public.webhook_outbox (api, subscription_id, event, url, headers, body)
  select 'content', d.id, 'ContentManagement.' || type || '.' || event, d.url,
    coalesce((select jsonb_object_agg(h ->> 'key', h ->> 'value') from jsonb_array_elements(d.headers) h), '{}'::jsonb)
      || jsonb_build_object(
        'X-Contentful-Topic', 'ContentManagement.' || type || '.' || event,
        'X-Contentful-Webhook-Name', d.name,
        'Content-Type', 'application/vnd.contentful.management.v1+json'),
    body::text
  from public.content_webhook_definitions d
  where d.active and public.content_webhook_matches(d.topics, type, event)
  order by d.id
$$;

create or replace function public.content_wants_event(type text, event text) returns boolean
language sql stable as $$
  select exists (select 1 from public.content_webhook_definitions d
                 where d.active and public.content_webhook_matches(d.topics, type, event))
$$;

-- Entries: a new draft row is `create`, a change of a draft's content `save`, a published row
-- written `publish`, a published row removed while the draft stays `unpublish`, the draft removed
-- `delete` (removing both rows in one statement is a delete only: row triggers run after the
-- statement, when the draft is already gone). A draft update that leaves the content as it was is
-- the revision bump of a publish or unpublish: no event of its own.
create or replace function public.content_entry_events() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  actor text := public.content_actor();
  event text;
  body jsonb;
begin
  if tg_op = 'UPDATE' and old is not distinct from new then
    return null;
  end if;
  if tg_op = 'INSERT' and new.stage = 'preview' then
    insert into public.content_meta as m (kind, id, created_by, updated_by) values ('Entry', new.id, actor, actor)
    on conflict (kind, id) do update set created_by = excluded.created_by, updated_by = excluded.updated_by;
    event := 'create';
  elsif tg_op = 'UPDATE' and new.stage = 'preview' then
    if (old.fields, old.access, old.model_id, old.path) is not distinct from (new.fields, new.access, new.model_id, new.path) then
      return null;
    end if;
    insert into public.content_meta as m (kind, id, created_by, updated_by) values ('Entry', new.id, actor, actor)
    on conflict (kind, id) do update set updated_by = excluded.updated_by;
    event := 'save';
  elsif tg_op = 'DELETE' and old.stage = 'preview' then
    delete from public.content_meta where kind = 'Entry' and id = old.id;
    event := 'delete';
  elsif tg_op in ('INSERT', 'UPDATE') then
    insert into public.content_meta as m (kind, id, updated_by, published_by, first_published_at, published_at, published_counter)
    values ('Entry', new.id, actor, actor, new.updated_at, new.updated_at, 1)
    on conflict (kind, id) do update set
      updated_by = excluded.updated_by, published_by = excluded.published_by,
      first_published_at = coalesce(m.first_published_at, excluded.first_published_at),
      published_at = excluded.published_at, published_counter = m.published_counter + 1;
    event := 'publish';
  else
    if not exists (select 1 from public.content_entries where stage = 'preview' and id = old.id) then
      return null;
    end if;
    event := 'unpublish';
  end if;

  if not public.content_wants_event('Entry', event) then
    return null;
  end if;
  if event = 'delete' then
    body := public.content_deleted_body('Entry', old.id, old.model_id, old.revision, old.created_at);
  else
    body := public.content_management_entry_by_id(coalesce(new.id, old.id));
    if body is null then
      return null;
    end if;
  end if;
  perform public.content_enqueue_event('Entry', event, body);
  return null;
end
$$;
create trigger content_entries_events after insert or update or delete on public.content_entries
  for each row execute function public.content_entry_events();

-- Assets: inserted is `create` (and `publish` when it arrives with its file, as the import's do);
-- a file taken into the library (processed, or replaced) is `publish`; published → not `unpublish`;
-- any other change `save`; removed `delete`.
create or replace function public.content_asset_events() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  actor text := public.content_actor();
  events text[];
  event text;
  body jsonb;
  published_now boolean := false;
begin
  if tg_op = 'UPDATE' and old is not distinct from new then
    return null;
  end if;
  if tg_op = 'INSERT' then
    events := case when new.published then array['create', 'publish'] else array['create'] end;
    published_now := new.published;
    insert into public.content_meta as m (kind, id, created_by, updated_by) values ('Asset', new.id, actor, actor)
    on conflict (kind, id) do update set created_by = excluded.created_by, updated_by = excluded.updated_by;
  elsif tg_op = 'UPDATE' then
    if new.published and (not old.published
        or (old.content_hash, old.storage_key, old.path) is distinct from (new.content_hash, new.storage_key, new.path)) then
      events := array['publish'];
      published_now := true;
    elsif old.published and not new.published then
      events := array['unpublish'];
    else
      events := array['save'];
    end if;
    insert into public.content_meta as m (kind, id, created_by, updated_by) values ('Asset', new.id, actor, actor)
    on conflict (kind, id) do update set updated_by = excluded.updated_by;
  else
    delete from public.content_meta where kind = 'Asset' and id = old.id;
    events := array['delete'];
  end if;
  if published_now then
    update public.content_meta m set
      published_by = actor, first_published_at = coalesce(m.first_published_at, new.updated_at),
      published_at = new.updated_at, published_counter = m.published_counter + 1
    where m.kind = 'Asset' and m.id = new.id;
  end if;

  foreach event in array events loop
    continue when not public.content_wants_event('Asset', event);
    if event = 'delete' then
      body := public.content_deleted_body('Asset', old.id, null, old.revision, old.created_at);
    else
      body := public.content_management_asset_by_id(new.id, public.content_media_host());
    end if;
    perform public.content_enqueue_event('Asset', event, body);
  end loop;
  return null;
end
$$;
create trigger content_assets_events after insert or update or delete on public.content_assets
  for each row execute function public.content_asset_events();

-- Definitions declared in the site's configuration (`webhooks:` items with `api: content`) are
-- source `file`: written whenever the configuration is, replacing a hand-made one of the same id, and
-- removed when no longer declared. A bad declaration fails the write (so the import) with its reason.
create or replace function public.content_sync_declared_webhooks() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  hook jsonb;
  item integer := -1;
  declared text[] := '{}';
  hook_id text;
  hook_topics text[];
  shown jsonb;
  hidden jsonb;
  header jsonb;
begin
  for hook in select value from jsonb_array_elements(
      case when jsonb_typeof(new.config -> 'webhooks') = 'array' then new.config -> 'webhooks' else '[]'::jsonb end) loop
    item := item + 1;
    continue when jsonb_typeof(hook) <> 'object' or coalesce(hook ->> 'api', '') <> 'content';
    if coalesce(jsonb_typeof(hook -> 'url'), '') <> 'string' or (hook ->> 'url') !~* '^https?://[^/\s]+' then
      raise exception 'site configuration webhooks[%]: url must be an http or https address', item;
    end if;
    if hook ? 'topics' and coalesce(jsonb_typeof(hook -> 'topics'), '') <> 'array' then
      raise exception 'site configuration webhooks[%]: topics must be a list such as [Entry.publish, "Asset.*"]', item;
    end if;
    hook_topics := case when hook ? 'topics'
      then array(select jsonb_array_elements_text(hook -> 'topics')) else array['*.*'] end;
    if not coalesce(public.content_webhook_topics_valid(hook_topics), false) then
      raise exception 'site configuration webhooks[%]: topics must be <Entry|Asset|*>.<create|save|publish|unpublish|delete|*> (got %)',
        item, array_to_string(hook_topics, ', ');
    end if;
    shown := '[]'::jsonb;
    hidden := '[]'::jsonb;
    for header in select value from jsonb_array_elements(
        case when jsonb_typeof(hook -> 'headers') = 'array' then hook -> 'headers' else '[]'::jsonb end) loop
      if coalesce(jsonb_typeof(header -> 'key'), '') <> 'string' or coalesce(jsonb_typeof(header -> 'value'), '') <> 'string' then
        raise exception 'site configuration webhooks[%]: each header needs a key and a value', item;
      end if;
      if coalesce((header ->> 'secret')::boolean, false) then
        hidden := hidden || jsonb_build_array(jsonb_build_object('key', header ->> 'key', 'value', header ->> 'value'));
      else
        shown := shown || jsonb_build_array(jsonb_build_object('key', header ->> 'key', 'value', header ->> 'value'));
      end if;
    end loop;
    hook_id := coalesce(hook ->> 'id', 'file-' || substr(md5(coalesce(hook ->> 'name', '') || ' ' || (hook ->> 'url')), 1, 16));
    insert into public.content_webhook_definitions as d (id, name, url, topics, headers, secret_headers, active, source)
    values (hook_id, coalesce(hook ->> 'name', hook ->> 'url'), hook ->> 'url', hook_topics, shown, hidden,
            coalesce((hook ->> 'active')::boolean, true), 'file')
    on conflict (id) do update set
      name = excluded.name, url = excluded.url, topics = excluded.topics, headers = excluded.headers,
      secret_headers = excluded.secret_headers, active = excluded.active, source = 'file',
      version = d.version + 1, updated_at = now()
    where (d.name, d.url, d.topics, d.headers, d.secret_headers, d.active, d.source)
      is distinct from (excluded.name, excluded.url, excluded.topics, excluded.headers, excluded.secret_headers,
                        excluded.active, excluded.source);
    declared := declared || hook_id;
  end loop;
  delete from public.content_webhook_definitions where source = 'file' and id <> all(declared);
  return null;
end
$$;
create trigger site_settings_content_webhooks after insert or update of config on public.site_settings
  for each row execute function public.content_sync_declared_webhooks();

-- ---- who reads and writes what ----------------------------------------------------------------------

create policy "staff read the management bookkeeping" on public.content_meta
  for select to authenticated using (public.is_staff());
create policy "administrators read uploads" on public.content_uploads
  for select to authenticated using (public.is_admin());
create policy "administrators manage webhook definitions" on public.content_webhook_definitions
  for all to authenticated using (public.is_admin()) with check (public.is_admin());

-- Supabase grants ALL on new tables to anon and authenticated: start from nothing, grant exactly.
revoke all on public.content_meta, public.content_uploads, public.content_webhook_definitions from anon, authenticated;
grant select on public.content_meta to authenticated;
grant select on public.content_uploads to authenticated;
-- secret header values can be written by an administrator but never read back, not even by one
grant select (id, name, url, topics, headers, active, source, version, created_by, updated_by, created_at,
  updated_at, last_at, last_status, last_error) on public.content_webhook_definitions to authenticated;
grant insert (id, name, url, topics, headers, secret_headers, active) on public.content_webhook_definitions to authenticated;
grant update (name, url, topics, headers, secret_headers, active, version, updated_at) on public.content_webhook_definitions to authenticated;
grant delete on public.content_webhook_definitions to authenticated;
grant all on public.content_meta, public.content_uploads, public.content_webhook_definitions to service_role;

-- the trigger functions and the outbox writer act as their owner; nobody calls them directly
revoke execute on function public.content_enqueue_event(text, text, jsonb) from public, anon, authenticated;
revoke execute on function public.content_entry_events(), public.content_asset_events(),
  public.content_sync_declared_webhooks() from public, anon, authenticated;
grant execute on function public.content_enqueue_event(text, text, jsonb) to service_role;
