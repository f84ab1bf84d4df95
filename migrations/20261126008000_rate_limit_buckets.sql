-- Rate-limit counting, one row per bucket instead of one per (bucket, window). Every API request counts
-- itself, so this write is the costliest part of admitting a request (shared/gate.ts): the two-row upsert
-- through a function measured about 0.18 ms in PGlite and half the admission statement, a one-row upsert
-- written into the admission statement itself about 0.08 ms. A bucket's row holds a count per window
-- (`hits`, in the order of `windows`) and the second it last counted: a window's count carries on while
-- that second and now fall in the same window (windows are aligned to the epoch, as before), else it
-- starts over at 1. `expires_at` is the second by which every window of the row has ended; it moves only
-- when the longest window rolls over, so most counts leave the indexed columns alone (HOT updates).

create unlogged table public.rate_limit_buckets (
  bucket text primary key,
  windows integer[] not null,
  hits integer[] not null,
  counted_at bigint not null,
  expires_at bigint not null
) with (fillfactor = 70);
create index rate_limit_buckets_expiry on public.rate_limit_buckets (expires_at);
alter table public.rate_limit_buckets enable row level security;
-- no policies: only the service role counts
revoke all on public.rate_limit_buckets from anon, authenticated;
grant all on public.rate_limit_buckets to service_role;

drop function if exists public.rate_limit_hit(text, integer[], timestamptz);
drop function if exists public.rate_limit_count(text, integer[], timestamptz);
drop function if exists public.rate_limit_sweep(timestamptz);
drop table if exists public.rate_limit_counters;

-- Deletes the buckets whose every window ended at least a minute before p_now (the minute of slack leaves
-- a window to an instance whose clock runs a little behind); answers how many went. pg_cron runs it too
-- (migrations/20261125211100_scheduled_sweeps.sql).
create or replace function public.rate_limit_sweep(p_now timestamptz) returns integer
language sql volatile as $$
  with gone as (
    delete from public.rate_limit_buckets
    where expires_at <= floor(extract(epoch from p_now))::bigint - 60
    returning 1
  )
  select count(*)::integer from gone
$$;

-- The first caller of each minute, on any instance, sweeps: it is the one whose write moves the
-- `rate-limit-sweep` row to that minute. No scheduler is needed, so plain Postgres, PGlite and Supabase
-- sweep alike. A process asks once a minute (shared/gate.ts), inside the admission statement.
create or replace function public.rate_limit_sweep_due(p_now timestamptz) returns integer
language plpgsql volatile as $$
declare
  v_minute bigint := floor(extract(epoch from p_now) / 60)::bigint * 60;
begin
  insert into public.rate_limit_buckets as b (bucket, windows, hits, counted_at, expires_at)
  values ('rate-limit-sweep', '{60}', '{1}', v_minute, v_minute + 60)
  on conflict (bucket) do update set counted_at = excluded.counted_at, expires_at = excluded.expires_at
  where b.counted_at < excluded.counted_at;
  -- one sweep at a time: two overlapping ones would only wait on each other's rows
  if found and pg_try_advisory_xact_lock(hashtext('public.rate_limit_sweep')) then
    return public.rate_limit_sweep(p_now);
  end if;
  return 0;
end
$$;

revoke execute on function public.rate_limit_sweep(timestamptz) from public, anon, authenticated;
grant execute on function public.rate_limit_sweep(timestamptz) to service_role;
revoke execute on function public.rate_limit_sweep_due(timestamptz) from public, anon, authenticated;
grant execute on function public.rate_limit_sweep_due(timestamptz) to service_role;
