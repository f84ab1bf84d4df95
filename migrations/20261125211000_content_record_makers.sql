-- Who made an entry or asset, on every management read and webhook body: sys.createdBy and
-- sys.updatedBy (and publishedBy) are always User links, as Contentful's always are.
--
-- * A change through the API names the management key's maker (a person), or the key itself when no
--   person made it (a key from `deno task key` without --by); a change in the admin names the person.
-- * Records that came from the repository (the site import, which has no person) name the site's
--   repository user, `site-repository`: the same id on every site and every import, so a client can tell
--   the repository's records from people's.

create or replace function public.content_repository_user() returns text
language sql immutable as $$
  select 'site-repository'
$$;

-- A User link: the person (or key) recorded, else the repository the record came from.
create or replace function public.content_user_link(id text) returns jsonb
language sql stable as $$
  select public.content_link('User', coalesce(id, public.content_repository_user()))
$$;

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
      'createdBy', public.content_user_link(m.created_by),
      'updatedBy', public.content_user_link(m.updated_by),
      'publishedBy', case when b.id is not null then public.content_user_link(m.published_by) end)),
    'fields', p.fields)
$$;

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
      'createdBy', public.content_user_link(m.created_by),
      'updatedBy', public.content_user_link(m.updated_by),
      'publishedBy', case when a.published then public.content_user_link(m.published_by) end)),
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

