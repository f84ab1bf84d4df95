-- Forms: the responses the form page stores as a visitor goes, the per-form webhook subscriptions,
-- and the statistics insights read. A form itself is a page record (content_entries, page kind
-- form-slides); responses name it by its slug and outlive it.

-- The fields a response answered, for answered_fields (a generated column needs an immutable function).
create or replace function public.form_answer_refs(answers jsonb) returns text[]
language sql immutable parallel safe as $$
  select coalesce(array_agg(k order by k), '{}'::text[]) from jsonb_object_keys(answers) as k
$$;

create table public.form_responses (
  -- the response's token: also its response_id and landing_id (the embed's onSubmit reports it)
  token text primary key,
  form text not null,
  landed_at timestamptz not null,
  submitted_at timestamptz,
  -- submitted_at, or landed_at while the response is open: the order of the list and since/until
  at timestamptz not null,
  updated_at timestamptz not null default now(),
  metadata jsonb not null default '{}'::jsonb,
  hidden jsonb not null default '{}'::jsonb,
  -- ref -> { type (the answer type), field_type, value }
  answers jsonb not null default '{}'::jsonb,
  answered text[] generated always as (public.form_answer_refs(answers)) stored,
  -- the slides (group refs) the visitor reached, and the last one: views and dropoffs per field
  seen text[] not null default '{}'::text[],
  last_slide text,
  score numeric,
  ending jsonb,
  platform text not null default 'other' check (platform in ('desktop', 'phone', 'tablet', 'other')),
  network_id text not null default '',
  -- answers and hidden values as words, for `query`
  search_text text not null default '',
  search tsvector generated always as (to_tsvector('simple'::regconfig, search_text)) stored,
  -- webhook_failed { subscriber: true }, webhook_error
  meta jsonb not null default '{}'::jsonb
);
alter table public.form_responses enable row level security;
create index form_responses_at on public.form_responses (form, at desc, token desc);
create index form_responses_landed on public.form_responses (form, landed_at, token);
create index form_responses_answered on public.form_responses using gin (answered);
create index form_responses_search on public.form_responses using gin (search);

create table public.form_webhooks (
  id uuid primary key default gen_random_uuid(),
  form text not null,
  tag text not null check (tag ~ '^[a-zA-Z0-9_.-]{1,64}$'),
  url text not null,
  secret text,
  enabled boolean not null default false,
  verify_ssl boolean not null default false,
  -- hand: made through the API (it belongs to its creator); file: declared in the site's configuration
  source text not null default 'hand' check (source in ('hand', 'file')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_at timestamptz,
  last_error text,
  unique (form, tag)
);
alter table public.form_webhooks enable row level security;

-- Per form and platform: what the admin statistics and the insights summary read. security_invoker
-- keeps the readers' row-level security in force through the view.
create view public.form_statistics with (security_invoker = true) as
  select form,
         platform,
         count(*) as total_visits,
         count(distinct nullif(network_id, '')) as unique_visits,
         count(submitted_at) as responses_count,
         coalesce(avg(extract(epoch from submitted_at - landed_at)) filter (where submitted_at is not null), 0)
           as average_time
  from public.form_responses
  group by form, platform;

create policy "staff read form responses" on public.form_responses
  for select to authenticated using (public.is_staff());
create policy "administrators delete form responses" on public.form_responses
  for delete to authenticated using (public.is_admin());
create policy "staff read form webhooks" on public.form_webhooks
  for select to authenticated using (public.is_staff());

revoke all on public.form_responses, public.form_webhooks, public.form_statistics from anon, authenticated;
grant select, delete on public.form_responses to authenticated;
-- the secret never leaves the service role
grant select (id, form, tag, url, enabled, verify_ssl, source, created_at, updated_at, last_at, last_error)
  on public.form_webhooks to authenticated;
grant select on public.form_statistics to authenticated;
grant all on public.form_responses, public.form_webhooks to service_role;
grant select on public.form_statistics to service_role;
grant execute on function public.form_answer_refs(jsonb) to anon, authenticated, service_role;

-- Webhooks declared in the site's configuration (`webhooks: [{ api: forms, form, tag, url, secret?,
-- enabled? }]`) become source `file` subscriptions whenever the settings are written, replacing a hand
-- subscription with the same form and tag; declarations that disappear are removed.
create or replace function public.form_webhooks_from_config() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  declared jsonb := coalesce(new.config -> 'webhooks', '[]'::jsonb);
begin
  if jsonb_typeof(declared) <> 'array' then
    declared := '[]'::jsonb;
  end if;
  with hooks as (
    select h ->> 'form' as form, coalesce(h ->> 'tag', 'site') as tag, h ->> 'url' as url, h ->> 'secret' as secret,
           coalesce((h ->> 'enabled')::boolean, true) as enabled
    from jsonb_array_elements(declared) as h
    where h ->> 'api' = 'forms' and h ->> 'form' is not null and h ->> 'url' is not null
      and coalesce(h ->> 'tag', 'site') ~ '^[a-zA-Z0-9_.-]{1,64}$'
  ), gone as (
    delete from public.form_webhooks w
    where w.source = 'file' and not exists (select 1 from hooks where hooks.form = w.form and hooks.tag = w.tag)
  )
  insert into public.form_webhooks (form, tag, url, secret, enabled, source)
  select form, tag, url, secret, enabled, 'file' from hooks
  on conflict (form, tag) do update
    set url = excluded.url, secret = excluded.secret, enabled = excluded.enabled, source = 'file',
        updated_at = now()
    where (form_webhooks.url, form_webhooks.secret, form_webhooks.enabled, form_webhooks.source)
      is distinct from (excluded.url, excluded.secret, excluded.enabled, excluded.source);
  return new;
end
$$;
revoke execute on function public.form_webhooks_from_config() from public, anon, authenticated;

create trigger site_settings_form_webhooks after insert or update of config on public.site_settings
  for each row execute function public.form_webhooks_from_config();
