-- Orders of the site's bag: what the checkout was opened for (lines with the prices charged, taken from
-- the catalog at that moment), who bought, and the payment session. An order turns paid only from a
-- verified payment event (shared/payments), never from the buyer's return to /app?checkout=success.

create table public.storefront_orders (
  id uuid primary key default gen_random_uuid(),
  status text not null default 'pending' check (status in ('pending', 'paid', 'expired')),
  -- the signed-in buyer (lines read online need one); null for a guest
  person_id uuid references auth.users (id) on delete set null,
  email text,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  amount_total bigint not null check (amount_total >= 0),
  lines jsonb not null check (jsonb_typeof(lines) = 'array'),
  country text,
  provider text not null,
  session_id text,
  -- the Store API cart the bag was handed off from, if any
  cart_id text,
  created_at timestamptz not null default now(),
  paid_at timestamptz
);
alter table public.storefront_orders enable row level security;
create index storefront_orders_person on public.storefront_orders (person_id, created_at desc);
create index storefront_orders_session on public.storefront_orders (session_id);

create policy "people read their own orders" on public.storefront_orders
  for select to authenticated using (person_id = auth.uid());
create policy "staff read every order" on public.storefront_orders
  for select to authenticated using (public.is_staff());

revoke all on public.storefront_orders from anon, authenticated;
grant select on public.storefront_orders to authenticated;
grant all on public.storefront_orders to service_role;
