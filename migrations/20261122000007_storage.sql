-- Bytes for the embedded default's storage adapter (media library, uploads, image-transform cache).
-- Deployed on Supabase the same interface goes to Supabase Storage instead and this table stays empty.
-- Keeping the bytes in Postgres keeps every function stateless: no instance owns a local disk.

create table public.storage_objects (
  bucket text not null,
  key text not null,
  content_type text not null,
  size bigint not null,
  bytes bytea not null,
  created_at timestamptz not null default now(),
  primary key (bucket, key)
);
alter table public.storage_objects enable row level security;
-- no policies: files are served by the functions (signed addresses), never read directly
grant all on public.storage_objects to service_role;
