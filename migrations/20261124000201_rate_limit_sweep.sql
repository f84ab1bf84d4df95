-- Rate-limit counters are swept: a row per bucket per window would otherwise pile up for ever (every
-- address, every made-up token makes buckets of its own). The first hit of each minute, on any instance,
-- deletes the windows that ended more than a minute before it; the minute of slack leaves a window to an
-- instance whose clock runs a little behind. No scheduler is needed, so plain Postgres, PGlite and
-- Supabase sweep alike.

create index if not exists rate_limit_counters_expiry on public.rate_limit_counters (window_start);

-- Deletes the windows that ended at least a minute before p_now; answers how many rows went.
create or replace function public.rate_limit_sweep(p_now timestamptz) returns integer
language sql volatile as $$
  with gone as (
    delete from public.rate_limit_counters
    where window_start < p_now - interval '1 minute'
      and window_start + make_interval(secs => window_seconds) <= p_now - interval '1 minute'
    returning 1
  )
  select count(*)::integer from gone
$$;

-- One round trip counts a hit in every window at once and answers each window's total; the minute's
-- first hit (the one that writes the minute's `rate-limit-sweep` row) sweeps first.
create or replace function public.rate_limit_hit(p_bucket text, p_windows integer[], p_now timestamptz)
returns table (window_seconds integer, hits integer, window_start timestamptz)
language plpgsql volatile as $$
#variable_conflict use_column
begin
  insert into public.rate_limit_counters (bucket, window_start, window_seconds, hits)
  values ('rate-limit-sweep', date_trunc('minute', p_now), 60, 1)
  on conflict do nothing;
  -- one sweep at a time: two overlapping ones would only wait on each other's rows
  if found and pg_try_advisory_xact_lock(hashtext('public.rate_limit_sweep')) then
    perform public.rate_limit_sweep(p_now);
  end if;
  return query
    insert into public.rate_limit_counters as c (bucket, window_start, window_seconds, hits)
    select p_bucket, to_timestamp(floor(extract(epoch from p_now) / w) * w), w, 1
    from unnest(p_windows) as w
    on conflict (bucket, window_seconds, window_start) do update set hits = c.hits + 1
    returning c.window_seconds, c.hits, c.window_start;
end
$$;

revoke execute on function public.rate_limit_sweep(timestamptz) from public, anon, authenticated;
grant execute on function public.rate_limit_sweep(timestamptz) to service_role;
revoke execute on function public.rate_limit_hit(text, integer[], timestamptz) from public, anon, authenticated;
grant execute on function public.rate_limit_hit(text, integer[], timestamptz) to service_role;
