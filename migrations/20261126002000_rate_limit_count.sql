-- Counting a request in its windows is one statement, kept in one place: rate_limit_hit runs it after
-- trying the minute's sweep, and the admission of a request calls it alone in the other seconds of a
-- minute (shared/gate.ts), where the sweep's own row would be one more write on every request.
create or replace function public.rate_limit_count(p_bucket text, p_windows integer[], p_now timestamptz)
returns table (window_seconds integer, hits integer, window_start timestamptz)
language sql volatile as $$
  insert into public.rate_limit_counters as c (bucket, window_start, window_seconds, hits)
  select p_bucket, to_timestamp(floor(extract(epoch from p_now) / w) * w), w, 1
  from unnest(p_windows) as w
  on conflict (bucket, window_seconds, window_start) do update set hits = c.hits + 1
  returning c.window_seconds, c.hits, c.window_start
$$;

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
  return query select * from public.rate_limit_count(p_bucket, p_windows, p_now);
end
$$;

revoke execute on function public.rate_limit_count(text, integer[], timestamptz) from public, anon, authenticated;
grant execute on function public.rate_limit_count(text, integer[], timestamptz) to service_role;
