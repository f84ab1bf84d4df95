-- Rate-limit counters shared by every instance of every function: one row per (bucket, window start).
create table public.rate_limit_counters (
  bucket text not null,
  window_start timestamptz not null,
  window_seconds integer not null,
  hits integer not null default 0,
  primary key (bucket, window_seconds, window_start)
);
alter table public.rate_limit_counters enable row level security;
create index rate_limit_counters_expiry on public.rate_limit_counters (window_start);
-- no policies: only the service role counts
grant all on public.rate_limit_counters to service_role;

-- One round trip counts a hit in every window at once and answers each window's total.
create or replace function public.rate_limit_hit(p_bucket text, p_windows integer[], p_now timestamptz)
returns table (window_seconds integer, hits integer, window_start timestamptz)
language sql volatile as $$
  insert into public.rate_limit_counters as c (bucket, window_start, window_seconds, hits)
  select p_bucket,
         to_timestamp(floor(extract(epoch from p_now) / w) * w),
         w,
         1
  from unnest(p_windows) as w
  on conflict (bucket, window_seconds, window_start) do update set hits = c.hits + 1
  returning c.window_seconds, c.hits, c.window_start
$$;
grant execute on function public.rate_limit_hit(text, integer[], timestamptz) to service_role;
