-- The images door's cache, listed. Each transform it stores (in the `image-cache` bucket, under the
-- file's content hash and the canonical parameters) gets a row here, so the transforms of a file no asset
-- has any more (the asset deleted, or its file replaced) can be found and removed from whichever storage
-- holds them (functions/content/routes/media.ts, sweepImageCache).

create table public.content_image_variants (
  content_hash text not null,
  variant text not null,
  created_at timestamptz not null default now(),
  primary key (content_hash, variant)
);
alter table public.content_image_variants enable row level security;
-- no policies: only the service role (the images door) reads and writes it
revoke all on public.content_image_variants from anon, authenticated;
grant all on public.content_image_variants to service_role;

-- the sweep asks, per cached file, whether any asset still has it
create index content_assets_content_hash on public.content_assets (content_hash);
