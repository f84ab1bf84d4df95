-- Content: models (content types), entries in two stages, the media library (assets), and the
-- tombstones sync reports as DeletedEntry / DeletedAsset.
--
-- An entry has one row per stage: 'preview' is the latest state (what the Preview API serves, drafts
-- included) and 'published' is what the Delivery API serves. Publishing copies preview to published;
-- unpublishing or deleting removes the published row, which leaves a tombstone for sync.

create sequence public.content_change_seq;

create table public.content_models (
  id text primary key,
  folder text not null unique,
  name text not null,
  description text not null default '',
  display_field text,
  fields jsonb not null default '[]'::jsonb,
  stock boolean not null default true,
  position integer not null default 0,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.content_models enable row level security;

create table public.content_entries (
  stage text not null check (stage in ('preview', 'published')),
  id text not null,
  model_id text not null references public.content_models (id),
  path text not null,
  access text not null default 'guest' check (access in ('guest', 'member', 'supporter', 'staff')),
  fields jsonb not null default '{}'::jsonb,
  links text[] not null default '{}',
  asset_links text[] not null default '{}',
  search_text text not null default '',
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  change_seq bigint not null default nextval('public.content_change_seq'),
  primary key (stage, id)
);
alter table public.content_entries enable row level security;
create index content_entries_type_created on public.content_entries (stage, model_id, created_at desc, id);
create index content_entries_created on public.content_entries (stage, created_at desc, id);
create index content_entries_change on public.content_entries (stage, change_seq);
create index content_entries_links on public.content_entries using gin (links);
create index content_entries_asset_links on public.content_entries using gin (asset_links);
create index content_entries_fields on public.content_entries using gin (fields jsonb_path_ops);

create table public.content_assets (
  id text primary key,
  path text not null unique,
  file_name text not null,
  content_type text not null,
  size bigint not null,
  width integer,
  height integer,
  title jsonb not null default '{}'::jsonb,
  description jsonb not null default '{}'::jsonb,
  content_hash text not null,
  storage_key text not null,
  published boolean not null default true,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  change_seq bigint not null default nextval('public.content_change_seq')
);
alter table public.content_assets enable row level security;
create index content_assets_created on public.content_assets (published, created_at desc, id);
create index content_assets_change on public.content_assets (published, change_seq);
create index content_assets_type on public.content_assets (content_type);

create table public.content_tombstones (
  id text not null,
  kind text not null check (kind in ('DeletedEntry', 'DeletedAsset')),
  stage text not null check (stage in ('preview', 'published')),
  model_id text,
  revision integer not null default 1,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz not null default now(),
  change_seq bigint not null default nextval('public.content_change_seq'),
  primary key (stage, kind, id)
);
alter table public.content_tombstones enable row level security;
create index content_tombstones_change on public.content_tombstones (stage, change_seq);

-- Every change that sync must report takes a fresh sequence number, whoever makes it (API, import, admin).
create or replace function public.content_touch_change_seq() returns trigger
language plpgsql as $$
begin
  new.change_seq := nextval('public.content_change_seq');
  return new;
end
$$;

create trigger content_entries_change_seq before update on public.content_entries
  for each row when (old.* is distinct from new.*) execute function public.content_touch_change_seq();
create trigger content_assets_change_seq before update on public.content_assets
  for each row when (old.* is distinct from new.*) execute function public.content_touch_change_seq();

create or replace function public.content_entry_tombstone() returns trigger
language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into public.content_tombstones (id, kind, stage, model_id, revision, created_at, updated_at)
    values (old.id, 'DeletedEntry', old.stage, old.model_id, old.revision, old.created_at, old.updated_at)
    on conflict (stage, kind, id) do update
      set deleted_at = now(), revision = excluded.revision, updated_at = excluded.updated_at,
          change_seq = nextval('public.content_change_seq');
    return old;
  end if;
  -- an entry that comes back is no longer deleted
  delete from public.content_tombstones where stage = new.stage and kind = 'DeletedEntry' and id = new.id;
  return new;
end
$$;
create trigger content_entries_tombstone after insert or delete on public.content_entries
  for each row execute function public.content_entry_tombstone();

create or replace function public.content_asset_tombstone() returns trigger
language plpgsql as $$
begin
  if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.published and not new.published) then
    insert into public.content_tombstones (id, kind, stage, model_id, revision, created_at, updated_at)
    values (old.id, 'DeletedAsset', 'published', null, old.revision, old.created_at, old.updated_at)
    on conflict (stage, kind, id) do update
      set deleted_at = now(), revision = excluded.revision, updated_at = excluded.updated_at,
          change_seq = nextval('public.content_change_seq');
  elsif new.published then
    delete from public.content_tombstones where stage = 'published' and kind = 'DeletedAsset' and id = new.id;
  end if;
  return coalesce(new, old);
end
$$;
create trigger content_assets_tombstone after insert or update or delete on public.content_assets
  for each row execute function public.content_asset_tombstone();

-- Readers: published content is public to everyone (the functions add key checks on top); the
-- Preview stage and unpublished assets are for staff. Gated bodies are filtered by the functions,
-- which know the key; the row-level rule keeps non-guest entries to signed-in people.
create policy "anyone reads the content models" on public.content_models
  for select to anon, authenticated using (true);
create policy "anyone reads published guest entries" on public.content_entries
  for select to anon using (stage = 'published' and access = 'guest');
create policy "signed-in people read published entries" on public.content_entries
  for select to authenticated using (stage = 'published');
create policy "staff read drafts" on public.content_entries
  for select to authenticated using (public.is_staff());
create policy "administrators write entries" on public.content_entries
  for all to authenticated using (public.is_admin()) with check (public.is_admin());
create policy "anyone reads published assets" on public.content_assets
  for select to anon, authenticated using (published);
create policy "staff read every asset" on public.content_assets
  for select to authenticated using (public.is_staff());
create policy "administrators write assets" on public.content_assets
  for all to authenticated using (public.is_admin()) with check (public.is_admin());
create policy "anyone reads published tombstones" on public.content_tombstones
  for select to anon, authenticated using (stage = 'published');

grant select on public.content_models, public.content_entries, public.content_assets,
  public.content_tombstones to anon, authenticated;
grant insert, update, delete on public.content_entries, public.content_assets to authenticated;
grant usage on sequence public.content_change_seq to authenticated, service_role;
grant all on public.content_models, public.content_entries, public.content_assets,
  public.content_tombstones to service_role;
