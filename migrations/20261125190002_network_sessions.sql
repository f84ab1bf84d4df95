-- Protocol sign-in: app passwords (made on the account page, shown once, kept as hashes) and the sessions
-- apps hold (token hashes: what a token's own claims say counts for nothing unless its hash is here). An
-- app's own settings (preferences, when notifications were last seen) and the event numbering of the
-- stream live here too.

create table public.network_app_passwords (
  id uuid primary key default gen_random_uuid(),
  person_id uuid not null references public.profiles (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 64),
  hash text not null unique,
  privileged boolean not null default false,
  created_at timestamptz not null default now(),
  unique (person_id, name)
);
alter table public.network_app_passwords enable row level security;

create policy "members read their own app passwords" on public.network_app_passwords
  for select to authenticated using (person_id = auth.uid());
revoke all on public.network_app_passwords from anon, authenticated;
-- never the hash
grant select (id, person_id, name, privileged, created_at) on public.network_app_passwords to authenticated;
grant all on public.network_app_passwords to service_role;

-- Revoking an app password deletes it, and its sessions go with it.
create table public.network_sessions (
  id uuid primary key default gen_random_uuid(),
  person_id uuid not null references public.profiles (id) on delete cascade,
  app_password_id uuid not null references public.network_app_passwords (id) on delete cascade,
  access_hash text not null unique,
  refresh_hash text not null unique,
  access_expires_at timestamptz not null,
  refresh_expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  refreshed_at timestamptz
);
alter table public.network_sessions enable row level security;
create index network_sessions_person on public.network_sessions (person_id);
create index network_sessions_expiry on public.network_sessions (refresh_expires_at);
-- no policy: only the server (service role) reads or writes sessions
revoke all on public.network_sessions from anon, authenticated;
grant all on public.network_sessions to service_role;

-- A ban ends every session of the member at once.
create or replace function public.network_end_sessions_on_suspension() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if new.suspended_at is not null and old.suspended_at is null then
    delete from public.network_sessions where person_id = new.id;
  end if;
  return new;
end
$$;
create trigger profiles_network_sessions after update of suspended_at on public.profiles
  for each row execute function public.network_end_sessions_on_suspension();

-- A password change ends them too. Supabase Auth keeps the password hash on auth.users; the compat
-- bootstrap's table has no such column, so there the trigger watches nothing until one is added.
create or replace function public.network_end_sessions_on_password_change() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if to_jsonb(new) ->> 'encrypted_password' is distinct from to_jsonb(old) ->> 'encrypted_password' then
    delete from public.network_sessions where person_id = new.id;
  end if;
  return new;
end
$$;
do $$
begin
  create trigger users_network_sessions after update on auth.users
    for each row execute function public.network_end_sessions_on_password_change();
exception when insufficient_privilege then
  raise notice 'auth.users is not ours to watch: password changes end protocol sessions at their expiry';
end
$$;

-- An app's own settings, stored verbatim, and when the member last saw their notifications.
create table public.network_prefs (
  person_id uuid primary key references public.profiles (id) on delete cascade,
  preferences jsonb not null default '[]'::jsonb check (jsonb_typeof(preferences) = 'array'),
  notifications_seen_at timestamptz,
  updated_at timestamptz not null default now()
);
alter table public.network_prefs enable row level security;
create policy "members read their own app settings" on public.network_prefs
  for select to authenticated using (person_id = auth.uid());
create policy "members store their own app settings" on public.network_prefs
  for insert to authenticated with check (person_id = auth.uid());
create policy "members change their own app settings" on public.network_prefs
  for update to authenticated using (person_id = auth.uid()) with check (person_id = auth.uid());
revoke all on public.network_prefs from anon, authenticated;
grant select, insert, update on public.network_prefs to authenticated;
grant all on public.network_prefs to service_role;

-- The event stream's numbering (com.atproto.sync.subscribeRepos, for members who joined the wider network).
create table public.network_seq (
  seq bigint generated always as identity primary key,
  did text not null,
  kind text not null check (kind in ('commit', 'identity', 'account')),
  event jsonb not null,
  created_at timestamptz not null default now()
);
alter table public.network_seq enable row level security;
create index network_seq_did on public.network_seq (did, seq);
revoke all on public.network_seq from anon, authenticated;
grant all on public.network_seq to service_role;
