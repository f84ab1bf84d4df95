-- Content webhook definitions honour Contentful's `filters`: a list of conditions on the changed record,
-- all of which must hold for a delivery to be written. Each condition is one of
--   { "equals": [{ "doc": <path> }, "<value>"] }
--   { "in": [{ "doc": <path> }, ["<value>", ...]] }
--   { "regexp": [{ "doc": <path> }, { "pattern": "<regular expression>" }] }
--   { "not": <one of the three above> }
-- on the paths sys.id, sys.contentType.sys.id, sys.environment.sys.id and sys.createdBy.sys.id of the
-- body the delivery carries. A path the body lacks (a delete has no createdBy) holds no value: equals, in
-- and regexp are false there, and `not` of them true. The API checks a definition's filters when it is
-- written (functions/content/domain/management-webhooks.ts); here they are only evaluated.

alter table public.content_webhook_definitions add column filters jsonb not null default '[]'::jsonb;

-- The value at one of the filterable paths of a delivery's body, or null.
create or replace function public.content_webhook_filter_value(body jsonb, doc text) returns text
language sql immutable as $$
  select case when doc in ('sys.id', 'sys.contentType.sys.id', 'sys.environment.sys.id', 'sys.createdBy.sys.id')
    then body #>> string_to_array(doc, '.') end
$$;

-- Whether one condition holds for the body (an unknown shape never holds).
create or replace function public.content_webhook_filter_holds(filter jsonb, body jsonb) returns boolean
language plpgsql immutable as $$
declare
  operands jsonb;
  value text;
begin
  if jsonb_typeof(filter) <> 'object' then
    return false;
  end if;
  if filter ? 'not' then
    return not public.content_webhook_filter_holds(filter -> 'not', body);
  end if;
  operands := coalesce(filter -> 'equals', filter -> 'in', filter -> 'regexp');
  if jsonb_typeof(operands) <> 'array' or jsonb_typeof(operands -> 0) <> 'object' then
    return false;
  end if;
  value := public.content_webhook_filter_value(body, operands -> 0 ->> 'doc');
  if value is null then
    return false;
  elsif filter ? 'equals' then
    return value = operands ->> 1;
  elsif filter ? 'in' then
    return jsonb_typeof(operands -> 1) = 'array' and (operands -> 1) ? value;
  else
    return value ~ (operands -> 1 ->> 'pattern');
  end if;
end
$$;

create or replace function public.content_webhook_filters_match(filters jsonb, body jsonb) returns boolean
language sql immutable as $$
  select coalesce(bool_and(public.content_webhook_filter_holds(f, body)), true)
  from jsonb_array_elements(case when jsonb_typeof(filters) = 'array' then filters else '[]'::jsonb end) f
$$;

-- As migration 030's, plus the definition's filters on the body.
create or replace function public.content_enqueue_event(type text, event text, body jsonb) returns void
language sql as $$
  insert into public.webhook_outbox (api, subscription_id, event, url, headers, body)
  select 'content', d.id, 'ContentManagement.' || type || '.' || event, d.url,
    coalesce((select jsonb_object_agg(h ->> 'key', h ->> 'value') from jsonb_array_elements(d.headers) h), '{}'::jsonb)
      || jsonb_build_object(
        'X-Contentful-Topic', 'ContentManagement.' || type || '.' || event,
        'X-Contentful-Webhook-Name', d.name,
        'Content-Type', 'application/vnd.contentful.management.v1+json'),
    body::text
  from public.content_webhook_definitions d
  where d.active and public.content_webhook_matches(d.topics, type, event)
    and public.content_webhook_filters_match(d.filters, body)
  order by d.id
$$;
revoke execute on function public.content_enqueue_event(text, text, jsonb) from public, anon, authenticated;
grant execute on function public.content_enqueue_event(text, text, jsonb) to service_role;

-- administrators read and write filters as they do the other columns
grant select (filters) on public.content_webhook_definitions to authenticated;
grant insert (filters) on public.content_webhook_definitions to authenticated;
grant update (filters) on public.content_webhook_definitions to authenticated;
