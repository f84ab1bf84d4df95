-- Federation: a joined member's account (did:plc and signing key), their signed repository (MST and commit
-- blocks, which record sits at which path), the event stream numbered by network_seq, the projection queue
-- that turns any change of a joined member's public rows into a commit (API writes and the admin alike),
-- and what the operator sees of the stream (subscribers, the last crawl request).

create table public.network_accounts (
  person_id uuid primary key references public.profiles (id) on delete cascade,
  did text not null unique check (did like 'did:plc:%'),
  -- AES-GCM ciphertext of the K-256 private key under the deployment secret (NETWORK_KEY_SECRET)
  signing_key text not null,
  -- the did:key of the signing key (what the DID document names)
  signing_did_key text not null,
  -- the handle the directory last heard; a different one is written there and announced (#identity)
  handle text not null,
  status text not null default 'active' check (status in ('active', 'deactivated')),
  joined_at timestamptz not null default now(),
  left_at timestamptz
);
alter table public.network_accounts enable row level security;
revoke all on public.network_accounts from anon, authenticated;
grant all on public.network_accounts to service_role;

-- the MST root of the head commit (network_repos keeps the commit and rev)
alter table public.network_repos add column data_cid text;

create table public.network_repo_blocks (
  person_id uuid not null references public.profiles (id) on delete cascade,
  cid text not null,
  -- the rev of the commit that first wrote the block (getRepo?since= sends the newer ones)
  rev text not null,
  bytes bytea not null,
  primary key (person_id, cid)
);
create index network_repo_blocks_rev on public.network_repo_blocks (person_id, rev);
alter table public.network_repo_blocks enable row level security;
revoke all on public.network_repo_blocks from anon, authenticated;
grant all on public.network_repo_blocks to service_role;

-- which record CID sits at which `<collection>/<rkey>` in the repository's head
create table public.network_repo_records (
  person_id uuid not null references public.profiles (id) on delete cascade,
  path text not null,
  cid text not null,
  primary key (person_id, path)
);
alter table public.network_repo_records enable row level security;
revoke all on public.network_repo_records from anon, authenticated;
grant all on public.network_repo_records to service_role;

-- The event stream. Numbers are taken under one transaction lock (network_next_seq), so they are
-- visible in the order they were given: a reader that saw n never later finds a smaller one appear.
-- (It replaces the placeholder of network_sessions, which held nothing yet: the bodies are DAG-CBOR.)
drop table public.network_seq;
create table public.network_seq (
  seq bigint primary key,
  did text not null,
  kind text not null check (kind in ('commit', 'identity', 'account', 'sync')),
  -- the event body as DAG-CBOR without seq (added when sent)
  body bytea not null,
  created_at timestamptz not null default now()
);
create sequence public.network_seq_numbers as bigint;
alter table public.network_seq enable row level security;
create index network_seq_did on public.network_seq (did, seq);
revoke all on public.network_seq from anon, authenticated;
grant all on public.network_seq to service_role;
grant usage on sequence public.network_seq_numbers to service_role;

create function public.network_next_seq() returns bigint
language sql volatile set search_path = public as $$
  select pg_advisory_xact_lock(hashtext('network_seq'));
  select nextval('public.network_seq_numbers');
$$;
revoke all on function public.network_next_seq() from public, anon, authenticated;
grant execute on function public.network_next_seq() to service_role;

-- What is waiting to be projected: a path of a joined member's repository whose row changed, or ''
-- for their account (handle, suspension).
create table public.network_project_queue (
  person_id uuid not null references public.profiles (id) on delete cascade,
  path text not null,
  queued_at timestamptz not null default now(),
  primary key (person_id, path)
);
alter table public.network_project_queue enable row level security;
revoke all on public.network_project_queue from anon, authenticated;
grant all on public.network_project_queue to service_role;

create function public.network_queue_path(person uuid, path text) returns void
language plpgsql security definer set search_path = public as $$
begin
  if person is null or not exists (select 1 from network_accounts a where a.person_id = person) then
    return;
  end if;
  insert into network_project_queue (person_id, path) values (person, path) on conflict do nothing;
  perform pg_notify('network_project', person::text);
end $$;
revoke all on function public.network_queue_path(uuid, text) from public, anon, authenticated;

-- Rows of posts, likes, reposts, follows and blocks: tg_argv[0] is the collection they form.
create function public.network_queue_record_change() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if tg_op <> 'INSERT' then
    perform network_queue_path(old.author_id, tg_argv[0] || '/' || old.rkey);
  end if;
  if tg_op <> 'DELETE' then
    perform network_queue_path(new.author_id, tg_argv[0] || '/' || new.rkey);
  end if;
  return null;
end $$;

create trigger network_project_posts after insert or update or delete on public.community_posts
  for each row execute function public.network_queue_record_change('app.bsky.feed.post');
create trigger network_project_likes after insert or update or delete on public.community_likes
  for each row execute function public.network_queue_record_change('app.bsky.feed.like');
create trigger network_project_reposts after insert or update or delete on public.community_reposts
  for each row execute function public.network_queue_record_change('app.bsky.feed.repost');
create trigger network_project_follows after insert or update or delete on public.community_follows
  for each row execute function public.network_queue_record_change('app.bsky.graph.follow');
create trigger network_project_blocks after insert or update or delete on public.community_blocks
  for each row execute function public.network_queue_record_change('app.bsky.graph.block');

create function public.network_queue_profile_change() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if new.network_profile is distinct from old.network_profile
    or new.display_name is distinct from old.display_name
    or new.description is distinct from old.description then
    perform network_queue_path(new.id, 'app.bsky.actor.profile/self');
  end if;
  if new.username is distinct from old.username or new.suspended_at is distinct from old.suspended_at then
    perform network_queue_path(new.id, '');
  end if;
  return null;
end $$;

create trigger network_project_profiles after update on public.profiles
  for each row execute function public.network_queue_profile_change();

-- The stream's subscribers on every instance (each instance keeps its own rows current).
create table public.network_subscribers (
  id uuid primary key,
  instance text not null,
  remote text not null,
  cursor bigint,
  last_seq bigint,
  connected_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
alter table public.network_subscribers enable row level security;
revoke all on public.network_subscribers from anon, authenticated;
grant all on public.network_subscribers to service_role;

-- The last requestCrawl sent to a relay and what it answered.
create table public.network_crawls (
  relay text primary key,
  asked_at timestamptz not null,
  status integer,
  answer text
);
alter table public.network_crawls enable row level security;
revoke all on public.network_crawls from anon, authenticated;
grant all on public.network_crawls to service_role;
