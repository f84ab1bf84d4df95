-- Deployed webhook delivery, per function: each function delivers its own API's webhooks.
--
-- Migration 20261122000036 had every outbox write call the content function, which delivered every API's
-- rows with whatever copy of the other APIs' code it shipped. Now a transaction that writes outbox rows
-- calls, once per API it wrote, the delivery route of the function that owns that API
-- (POST {function_url}/functions/v1/<function>/webhooks/deliver), and pg_cron's minute calls the route of
-- each API with rows due. Addresses, keys and the "nothing to call" cases are as in migration 036.

-- The function that delivers an outbox api's rows: content's are its own; every other API is served by
-- its "<api>-api" function (forms-api, scheduling-api, support-api).
create or replace function public.webhook_outbox_function(api text) returns text
language sql immutable set search_path = public, pg_temp as $$
  select case when api = 'content' then 'content' else api || '-api' end
$$;

-- POSTs to a route of a function with the service key; answers pg_net's request id, or null when nothing
-- can be called (no pg_net, no address or no key).
create or replace function public.sitewire_call_function(fn text, route text) returns bigint
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
    url := rtrim(base, '/') || '/functions/v1/' || fn || route,
    body := '{}'::jsonb,
    params := '{}'::jsonb,
    headers := jsonb_build_object('Authorization', 'Bearer ' || key, 'Content-Type', 'application/json'),
    -- a delivery route sends up to 100 deliveries of up to 10 s each, 20 at a time
    timeout_milliseconds := 60000);
end
$$;

-- the content function's own calls (the daily upload sweep) go through the same door
create or replace function public.sitewire_call_content(route text) returns bigint
language sql volatile security definer set search_path = public, pg_temp as $$
  select public.sitewire_call_function('content', route)
$$;

-- After a statement that wrote outbox rows: one call per API per transaction is enough, since a route
-- drains everything of its API that is due; later statements of the same transaction that write rows of
-- an API already called stay quiet.
create or replace function public.webhook_outbox_call_delivery() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  called text[] := string_to_array(nullif(current_setting('sitewire.delivery_called', true), ''), ',');
  written_api text;
begin
  for written_api in select distinct w.api from written w order by 1 loop
    if written_api = any(coalesce(called, '{}')) then
      continue;
    end if;
    perform public.sitewire_call_function(public.webhook_outbox_function(written_api), '/webhooks/deliver');
    called := array_append(coalesce(called, '{}'), written_api);
  end loop;
  perform set_config('sitewire.delivery_called', coalesce(array_to_string(called, ','), ''), true);
  return null;
end
$$;

-- pg_cron's minute: a call for each API with a row due, so an idle site makes no function calls; answers
-- how many calls were made, or null when nothing is due.
create or replace function public.webhook_outbox_deliver_due() returns bigint
language plpgsql volatile security definer set search_path = public, pg_temp as $$
declare
  due_api text;
  calls bigint := 0;
begin
  for due_api in
    select distinct o.api from public.webhook_outbox o
     where o.status = 'pending' and o.next_attempt_at <= now() order by 1
  loop
    perform public.sitewire_call_function(public.webhook_outbox_function(due_api), '/webhooks/deliver');
    calls := calls + 1;
  end loop;
  return nullif(calls, 0);
end
$$;

revoke execute on function public.sitewire_call_function(text, text), public.sitewire_call_content(text),
  public.webhook_outbox_call_delivery(), public.webhook_outbox_deliver_due()
  from public, anon, authenticated;
