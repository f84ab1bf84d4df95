-- Counting a request is the one write every API request makes, and a `language sql` function that
-- modifies data is planned anew on every call. In PL/pgSQL its statement's plan is kept for the
-- session, which takes about a third off the count on a server (measured: 0.27 ms to 0.19 ms a call).
create or replace function public.rate_limit_count(p_bucket text, p_windows integer[], p_now timestamptz)
returns table (window_seconds integer, hits integer, window_start timestamptz)
language plpgsql volatile as $$
#variable_conflict use_column
begin
  return query
    insert into public.rate_limit_counters as c (bucket, window_start, window_seconds, hits)
    select p_bucket, to_timestamp(floor(extract(epoch from p_now) / w) * w), w, 1
    from unnest(p_windows) as w
    on conflict (bucket, window_seconds, window_start) do update set hits = c.hits + 1
    returning c.window_seconds, c.hits, c.window_start;
end
$$;

revoke execute on function public.rate_limit_count(text, integer[], timestamptz) from public, anon, authenticated;
grant execute on function public.rate_limit_count(text, integer[], timestamptz) to service_role;
