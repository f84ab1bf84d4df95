-- Checkout sessions of the local payment provider (shared/payments/local.ts): the embedded default's
-- stand-in for Stripe. The host serves each session's page at /pay/local/<id>; paying it posts a
-- Stripe-shaped, Stripe-signed event to the session's notify_url. Deployed sites use Stripe and never
-- write here.

create table public.payment_sessions (
  id text primary key,
  reference text not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  items jsonb not null check (jsonb_typeof(items) = 'array'),
  amount_total bigint not null check (amount_total >= 0),
  customer_email text,
  shipping_countries text[] not null default '{}',
  metadata jsonb not null default '{}'::jsonb,
  success_url text not null,
  cancel_url text not null,
  notify_url text not null,
  status text not null default 'open' check (status in ('open', 'complete', 'expired')),
  -- the event last sent (kept so a failed delivery can be sent again unchanged)
  event jsonb,
  notify_status integer,
  notify_error text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  completed_at timestamptz
);
alter table public.payment_sessions enable row level security;
create index payment_sessions_reference on public.payment_sessions (reference);

-- Sessions hold buyers' addresses and what they bought: administrators may look, nobody else.
create policy "administrators read payment sessions" on public.payment_sessions
  for select to authenticated using (public.is_admin());

revoke all on public.payment_sessions from anon, authenticated;
grant select on public.payment_sessions to authenticated;
grant all on public.payment_sessions to service_role;
