-- Store API carts. The id is a random token and the only secret of a cart: any storefront key may
-- read or change a cart whose token it knows (spec rule 5), and the handoff page opens it by token.
-- Lines keep what was chosen (sku, variant tail, quantity, attributes), never a price: prices are
-- recomputed from the catalog on every read.

create table public.storefront_carts (
  id text primary key check (id ~ '^[0-9A-Za-z]{32}$'),
  lines jsonb not null default '[]'::jsonb check (jsonb_typeof(lines) = 'array'),
  buyer jsonb not null default '{}'::jsonb check (jsonb_typeof(buyer) = 'object'),
  attributes jsonb not null default '[]'::jsonb check (jsonb_typeof(attributes) = 'array'),
  note text,
  -- the key that made the cart (kept for support and abuse checks; a revoked key's carts live on)
  key_id uuid references public.api_keys (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.storefront_carts enable row level security;
-- the retention sweep deletes by age of the last change
create index storefront_carts_updated on public.storefront_carts (updated_at);

-- Carts belong to visitors nobody has identified; staff may look at them (support questions), nobody
-- but the store function (service role) changes them.
create policy "staff read carts" on public.storefront_carts
  for select to authenticated using (public.is_staff());

revoke all on public.storefront_carts from anon, authenticated;
grant select on public.storefront_carts to authenticated;
grant all on public.storefront_carts to service_role;

-- A cart is kept thirty days from its last change (spec: Carts, Limits). Answers how many went.
create or replace function public.sweep_storefront_carts(p_now timestamptz default now(), p_days integer default 30)
returns integer
language sql volatile as $$
  with gone as (
    delete from public.storefront_carts where updated_at < p_now - make_interval(days => p_days) returning 1
  )
  select count(*)::integer from gone
$$;
revoke execute on function public.sweep_storefront_carts(timestamptz, integer) from public, anon, authenticated;
grant execute on function public.sweep_storefront_carts(timestamptz, integer) to service_role;

-- The nightly sweep: where pg_cron is installed (Supabase, most managed Postgres) the database runs it
-- itself; the embedded default (deno task dev) runs the same function nightly.
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_cron') then
    perform cron.schedule('sitewire-sweep-storefront-carts', '20 4 * * *',
      'select public.sweep_storefront_carts(now())');
  end if;
end
$$;
