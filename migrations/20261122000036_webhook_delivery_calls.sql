-- Deployed webhook delivery: the database asks the content function to deliver (Supabase).
--
-- Where pg_net is installed, a transaction that writes webhook_outbox rows calls the content function's
-- delivery route, POST {function_url}/functions/v1/content/webhooks/deliver, once; pg_net sends the
-- request after the transaction commits, so the route finds the rows (a rolled-back change sends
-- nothing). Where pg_cron is installed it calls the same route every minute while rows are due (retries
-- come due on their own time), and the upload sweep daily at 04:50 (UTC). The route delivers with the
-- dispatcher code and adapters the dev host's long-running dispatcher uses (shared/webhooks/).
--
-- The address and the bearer key come from Supabase Vault (secrets `sitewire_function_url`,
-- `sitewire_service_key`) where it holds them, else from site_secrets (`function_url`, `service_key`).
-- The key is the one the route checks: SUPABASE_SERVICE_ROLE_KEY on Supabase. Without pg_net, or without
-- an address and a key, nothing is called: plain Postgres and the embedded PGlite have the host's
-- dispatcher instead (deno task dev), which wakes on the outbox's NOTIFY or polls.

-- A secret for these calls: Vault's `sitewire_<name>` where Vault exists and holds it, else site_secrets.
create or replace function public.sitewire_call_secret(name text) returns text
language plpgsql stable security definer set search_path = public, pg_temp as $$
declare
  stored text;
begin
  -- Vault is Supabase's; elsewhere the view does not exist and must not be named in static SQL
  if to_regclass('vault.decrypted_secrets') is not null then
    execute 'select decrypted_secret from vault.decrypted_secrets where name = $1 limit 1' into stored
      using 'sitewire_' || name;
  end if;
  return coalesce(stored, (select s.value from public.site_secrets s where s.name = sitewire_call_secret.name));
end
$$;

-- POSTs to a route of the content function with the service key; answers pg_net's request id, or null
-- when nothing can be called (no pg_net, no address or no key).
create or replace function public.sitewire_call_content(route text) returns bigint
language plpgsql volatile security definer set search_path = public, pg_temp as $$
declare
  base text;
  key text;
begin
  if to_regprocedure('net.http_post(text, jsonb, jsonb, jsonb, integer)') is null then
    return null; -- checked first: on plain Postgres every outbox write passes here
  end if;
  base := public.sitewire_call_secret('function_url');
  key := public.sitewire_call_secret('service_key');
  if base is null or key is null then
    return null;
  end if;
  return net.http_post(
    url := rtrim(base, '/') || '/functions/v1/content' || route,
    body := '{}'::jsonb,
    params := '{}'::jsonb,
    headers := jsonb_build_object('Authorization', 'Bearer ' || key, 'Content-Type', 'application/json'),
    -- the route sends up to 100 deliveries of up to 10 s each, 20 at a time
    timeout_milliseconds := 60000);
end
$$;

-- After a statement that wrote outbox rows: one call per transaction is enough, since the route drains
-- everything due; later statements of the same transaction see the flag and stay quiet.
create or replace function public.webhook_outbox_call_delivery() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if coalesce(current_setting('sitewire.delivery_called', true), '') = 'yes'
      or not exists (select 1 from written) then
    return null;
  end if;
  perform public.sitewire_call_content('/webhooks/deliver');
  perform set_config('sitewire.delivery_called', 'yes', true);
  return null;
end
$$;
create trigger webhook_outbox_call_delivery after insert on public.webhook_outbox
  referencing new table as written
  for each statement execute function public.webhook_outbox_call_delivery();

-- pg_cron's minute: a call only while some row is due, so an idle site makes no function calls.
create or replace function public.webhook_outbox_deliver_due() returns bigint
language plpgsql volatile security definer set search_path = public, pg_temp as $$
begin
  if not exists (select 1 from public.webhook_outbox where status = 'pending' and next_attempt_at <= now()) then
    return null;
  end if;
  return public.sitewire_call_content('/webhooks/deliver');
end
$$;

-- Schedules the calls where pg_cron is installed (jobs are replaced by name, so this may run again,
-- e.g. after pg_cron is switched on later); answers whether it did.
create or replace function public.sitewire_schedule_calls() returns boolean
language plpgsql volatile security definer set search_path = public, pg_temp as $$
begin
  if to_regprocedure('cron.schedule(text, text, text)') is null then
    return false;
  end if;
  perform cron.schedule('sitewire-webhook-delivery', '* * * * *', 'select public.webhook_outbox_deliver_due()');
  perform cron.schedule('sitewire-sweep-uploads', '50 4 * * *', $job$select public.sitewire_call_content('/sweep-uploads')$job$);
  return true;
end
$$;
select public.sitewire_schedule_calls();

-- these read secrets and call out with the service key: nobody but the database itself runs them
revoke execute on function public.sitewire_call_secret(text), public.sitewire_call_content(text),
  public.webhook_outbox_call_delivery(), public.webhook_outbox_deliver_due(), public.sitewire_schedule_calls()
  from public, anon, authenticated;
