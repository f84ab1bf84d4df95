-- The community's people: what the protocol server shows of a member lives on the site's own profile
-- (username, display name, description, pictures). Handles and DIDs are never stored: they are built from
-- the username (or the id) and the deployment's handle domain each time, so a new username is a new handle.

alter table public.profiles
  add column username text unique
    check (username ~ '^[a-z0-9]([a-z0-9-]{0,28}[a-z0-9])?$' and username !~ '^m[0-9a-f]{12}$'),
  add column description text not null default '' check (char_length(description) <= 2560),
  add column avatar_cid text,
  add column avatar_mime text,
  add column banner_cid text,
  add column banner_mime text,
  -- the app.bsky.actor.profile record as an app last wrote it (fields the site has no column for kept)
  add column network_profile jsonb,
  add column network_profile_cid text,
  -- a did:plc once the member joined the wider network (federation); null: the site's own people only
  add column network_did text unique,
  -- a suspended (banned) member is hidden from everybody and can write nothing
  add column suspended_at timestamptz;

-- The first label of a member's handle: the username, else `m` and the last twelve hex digits of the id.
create or replace function public.network_name(p_username text, p_id uuid) returns text
language sql immutable as $$
  select coalesce(p_username, 'm' || split_part(p_id::text, '-', 5))
$$;
grant execute on function public.network_name(text, uuid) to anon, authenticated, service_role;

-- handles built from the id are looked up by it
create index profiles_network_id_name on public.profiles (('m' || split_part(id::text, '-', 5)));

-- Is the caller one of the site's own people (signed in, with a profile, not suspended)?
create or replace function public.network_is_member() returns boolean
language sql stable security definer set search_path = public as $$
  select exists (select 1 from public.profiles where id = auth.uid() and suspended_at is null)
$$;

-- May the caller see this person at all? The site's own people see every member who is not suspended;
-- somebody from outside sees only those who joined the wider network.
create or replace function public.network_sees_person(p_person uuid) returns boolean
language sql stable security definer set search_path = public as $$
  select exists (
    select 1 from public.profiles p
    where p.id = p_person and p.suspended_at is null
      and (p.network_did is not null or public.network_is_member())
  )
$$;

grant execute on function public.network_is_member(), public.network_sees_person(uuid)
  to anon, authenticated, service_role;

-- Everybody the caller may see, with what the protocol shows of them (never their address or role).
create or replace function public.network_people()
returns table (
  id uuid, name text, username text, display_name text, description text,
  avatar_cid text, avatar_mime text, banner_cid text, banner_mime text,
  network_did text, network_profile jsonb, network_profile_cid text, created_at timestamptz
)
language sql stable security definer set search_path = public as $$
  select p.id, public.network_name(p.username, p.id), p.username, p.display_name, p.description,
         p.avatar_cid, p.avatar_mime, p.banner_cid, p.banner_mime,
         p.network_did, p.network_profile, p.network_profile_cid, p.created_at
  from public.profiles p
  where p.suspended_at is null and (p.network_did is not null or public.network_is_member())
$$;
grant execute on function public.network_people() to anon, authenticated, service_role;

-- Whose is this handle name? For the server's own identity lookups (service role only): it answers for
-- suspended members too, so a sign-in can be refused with the reason.
create or replace function public.network_user_of_name(p_name text) returns uuid
language sql stable security definer set search_path = public as $$
  select id from public.profiles where username = lower(p_name)
  union all
  select id from public.profiles
  where lower(p_name) ~ '^m[0-9a-f]{12}$' and ('m' || split_part(id::text, '-', 5)) = lower(p_name)
    and username is null
  limit 1
$$;
revoke execute on function public.network_user_of_name(text) from public, anon, authenticated;
grant execute on function public.network_user_of_name(text) to service_role;

-- Actor search: the words of a member's username and display name, kept beside the profile by a trigger.
create table public.network_find (
  person_id uuid primary key references public.profiles (id) on delete cascade,
  names tsvector not null,
  sort_name text not null
);
alter table public.network_find enable row level security;
create index network_find_names on public.network_find using gin (names);

create policy "people find the members they may see" on public.network_find
  for select to anon, authenticated using (public.network_sees_person(person_id));

create or replace function public.network_find_sync() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  words text := public.network_name(new.username, new.id) || ' ' || coalesce(new.display_name, '');
begin
  insert into public.network_find (person_id, names, sort_name)
  values (new.id, to_tsvector('simple', regexp_replace(lower(words), '[-_.]', ' ', 'g') || ' ' || lower(words)),
          lower(public.network_name(new.username, new.id)))
  on conflict (person_id) do update set names = excluded.names, sort_name = excluded.sort_name;
  return new;
end
$$;
create trigger profiles_network_find after insert or update of username, display_name on public.profiles
  for each row execute function public.network_find_sync();
insert into public.network_find (person_id, names, sort_name)
  select id, to_tsvector('simple', lower(public.network_name(username, id) || ' ' || display_name)),
         lower(public.network_name(username, id))
  from public.profiles
  on conflict do nothing;

revoke all on public.network_find from anon, authenticated;
grant select on public.network_find to anon, authenticated;
grant all on public.network_find to service_role;
