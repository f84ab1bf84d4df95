-- The site: one row of settings read from the content directory's configuration, and the secrets the
-- functions sign with (tokens, signed addresses). Secrets are never readable by anon or authenticated.

create table public.site_settings (
  id boolean primary key default true check (id),
  name text not null,
  slug text not null,
  domain text not null,
  mode text not null check (mode in ('git', 'cloud')),
  modules jsonb not null default '{}'::jsonb,
  locales jsonb not null default '[]'::jsonb,
  config jsonb not null default '{}'::jsonb,
  source_dir text,
  imported_at timestamptz,
  updated_at timestamptz not null default now()
);
alter table public.site_settings enable row level security;

create table public.site_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);
alter table public.site_secrets enable row level security;
-- No policy on site_secrets: only the service role (which bypasses RLS) reads it.

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  email text not null,
  display_name text not null default '',
  role text not null default 'member' check (role in ('admin', 'support', 'member')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.profiles enable row level security;

-- security definer so a policy on profiles can ask about profiles without recursing into itself
create or replace function public.current_person_role() returns text
language sql stable security definer set search_path = public as $$
  select role from public.profiles where id = auth.uid()
$$;

create or replace function public.is_admin() returns boolean
language sql stable as $$ select coalesce(public.current_person_role() = 'admin', false) $$;

create or replace function public.is_staff() returns boolean
language sql stable as $$ select coalesce(public.current_person_role() in ('admin', 'support'), false) $$;

grant execute on function public.current_person_role(), public.is_admin(), public.is_staff()
  to anon, authenticated, service_role;

create policy "anyone can read the public site settings" on public.site_settings
  for select to anon, authenticated using (true);
create policy "administrators change the site settings" on public.site_settings
  for update to authenticated using (public.is_admin()) with check (public.is_admin());

create policy "people read their own profile" on public.profiles
  for select to authenticated using (id = auth.uid());
create policy "staff read every profile" on public.profiles
  for select to authenticated using (public.is_staff());
create policy "administrators change profiles" on public.profiles
  for all to authenticated using (public.is_admin()) with check (public.is_admin());

grant select on public.site_settings to anon, authenticated;
grant update (name, domain, modules, config, updated_at) on public.site_settings to authenticated;
grant select, insert, update, delete on public.profiles to authenticated;
grant all on public.site_settings, public.site_secrets, public.profiles to service_role;
