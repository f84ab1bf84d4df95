-- API keys: only the SHA-256 hash of a key is stored. Administrators manage keys through RLS but can
-- never read the hash column; the functions look keys up by hash as the service role.

create table public.api_keys (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  kind text not null check (kind in ('delivery', 'preview', 'management', 'forms', 'scheduling',
    'storefront', 'support')),
  gated boolean not null default false,
  prefix text not null,
  hash text not null unique,
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
alter table public.api_keys enable row level security;
create index api_keys_kind on public.api_keys (kind) where revoked_at is null;

create policy "administrators read keys" on public.api_keys
  for select to authenticated using (public.is_admin());
create policy "administrators create keys" on public.api_keys
  for insert to authenticated with check (public.is_admin());
create policy "administrators revoke keys" on public.api_keys
  for update to authenticated using (public.is_admin()) with check (public.is_admin());

-- column grants: the hash is never selectable by anon or authenticated, even by an administrator
grant select (id, name, kind, gated, prefix, created_by, created_at, last_used_at, revoked_at)
  on public.api_keys to authenticated;
grant insert (name, kind, gated, prefix, hash, created_by) on public.api_keys to authenticated;
grant update (name, revoked_at) on public.api_keys to authenticated;
grant all on public.api_keys to service_role;
