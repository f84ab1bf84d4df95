-- The federation's internal routes where the network function sleeps between requests (deployed on
-- Supabase): the database calls them at the function's own address, as it calls the webhook delivery
-- routes (migration 20261125001000, sitewire_call_function: pg_net, the function address and the service
-- key from Vault or site_secrets; nothing without them). The local host runs the projector loop and the
-- daily crawl in its own process instead (scripts/dev.ts), and both paths reach the same code.
--
-- 1. A change of a joined member's public rows (the admin, SQL) asks POST /internal/project once per
--    transaction, besides the NOTIFY an awake instance listens for. An API write projects inside its own
--    transaction and says so first (sitewire.network_project_called = 'here'), so it calls nothing.
-- 2. pg_cron: the projection minute (only while something waits in the queue, e.g. after a call that
--    failed) and the daily requestCrawl at 05:10 UTC (CRAWL_AT_UTC in functions/network/federation/projector.ts).

create or replace function public.network_queue_path(person uuid, path text) returns void
language plpgsql security definer set search_path = public as $$
begin
  if person is null or not exists (select 1 from network_accounts a where a.person_id = person) then
    return;
  end if;
  insert into network_project_queue (person_id, path) values (person, path) on conflict do nothing;
  perform pg_notify('network_project', person::text);
  if coalesce(current_setting('sitewire.network_project_called', true), '') = '' then
    perform public.sitewire_call_function('network', '/internal/project');
    perform set_config('sitewire.network_project_called', 'called', true);
  end if;
end $$;
revoke all on function public.network_queue_path(uuid, text) from public, anon, authenticated;

-- pg_cron's minute: one call while the queue holds anything; answers pg_net's request id, else null.
create or replace function public.network_project_due() returns bigint
language plpgsql volatile security definer set search_path = public, pg_temp as $$
begin
  if not exists (select 1 from public.network_project_queue) then
    return null;
  end if;
  return public.sitewire_call_function('network', '/internal/project');
end $$;

create or replace function public.network_schedule_calls() returns boolean
language plpgsql volatile security definer set search_path = public, pg_temp as $$
begin
  if to_regprocedure('cron.schedule(text, text, text)') is null then
    return false;
  end if;
  perform cron.schedule('sitewire-network-project', '* * * * *', 'select public.network_project_due()');
  perform cron.schedule('sitewire-network-crawl', '10 5 * * *',
    $job$select public.sitewire_call_function('network', '/internal/crawl')$job$);
  return true;
end $$;
select public.network_schedule_calls();

revoke execute on function public.network_project_due(), public.network_schedule_calls()
  from public, anon, authenticated;
