-- The rate-limit and image-cache sweeps as pg_cron jobs where the database has pg_cron (Supabase): the
-- rate-limit sweep otherwise runs only on the first hit of each minute (migration 20261124000201), so a
-- site nobody calls keeps its last counters; the images door sweeps its cache only after a transform it
-- computes. sitewire_schedule_calls (migration 036) schedules them beside the delivery minute and the
-- upload sweep, replacing jobs by name, so running it again is harmless.

create or replace function public.sitewire_schedule_calls() returns boolean
language plpgsql volatile security definer set search_path = public, pg_temp as $$
begin
  if to_regprocedure('cron.schedule(text, text, text)') is null then
    return false;
  end if;
  perform cron.schedule('sitewire-webhook-delivery', '* * * * *', 'select public.webhook_outbox_deliver_due()');
  perform cron.schedule('sitewire-sweep-uploads', '50 4 * * *', $job$select public.sitewire_call_content('/sweep-uploads')$job$);
  perform cron.schedule('sitewire-sweep-rate-limits', '*/10 * * * *', 'select public.rate_limit_sweep(now())');
  perform cron.schedule('sitewire-sweep-image-cache', '40 4 * * *', $job$select public.sitewire_call_content('/sweep-image-cache')$job$);
  return true;
end
$$;
select public.sitewire_schedule_calls();

revoke execute on function public.sitewire_schedule_calls() from public, anon, authenticated;
