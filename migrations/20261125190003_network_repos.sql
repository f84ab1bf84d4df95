-- What the protocol server keeps per member repository: its head (the revision and commit of the last
-- write, which swapCommit is checked against) and the blobs the member uploaded (bytes in the storage
-- interface's `network` bucket under the member's id, named by their raw-codec CID).

create table public.network_repos (
  person_id uuid primary key references public.profiles (id) on delete cascade,
  rev text not null,
  commit_cid text not null,
  updated_at timestamptz not null default now()
);
alter table public.network_repos enable row level security;
revoke all on public.network_repos from anon, authenticated;
grant all on public.network_repos to service_role;

create table public.network_blobs (
  person_id uuid not null references public.profiles (id) on delete cascade,
  cid text not null,
  mime text not null,
  size bigint not null check (size >= 0),
  created_at timestamptz not null default now(),
  primary key (person_id, cid)
);
alter table public.network_blobs enable row level security;
-- a blob is shown through signed addresses made for a reader who may see the post or profile holding it
revoke all on public.network_blobs from anon, authenticated;
grant all on public.network_blobs to service_role;
