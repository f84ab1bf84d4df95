-- The store's catalog as the database sees it: which published records are products, their handle, the
-- names a collection or a cart line may use for them (handle and skus), and their lowest price. These
-- are what paging, sorting and lookups need; the options and variants themselves are built from the
-- record by functions/storefront-api/domain/catalog.ts, whose rules these functions mirror (the catalog
-- tests compare the two on every record).
--
-- storefront_products (kept by a trigger) holds the answers per product, indexed for every sort and
-- lookup, so a page or a cart line is found without working through the whole catalog.

-- an amount as the catalog accepts it: a JSON number or a numeric string, from 0 up to (not) 1e12
create or replace function public.storefront_amount(v jsonb) returns numeric
language sql immutable parallel safe as $$
  select case
    when jsonb_typeof(v) = 'number' then
      case when (v::text)::numeric >= 0 and (v::text)::numeric < 1e12 then (v::text)::numeric end
    when jsonb_typeof(v) = 'string' and (v #>> '{}') ~ '^\s*[0-9]+(\.[0-9]+)?\s*$' then
      case when btrim(v #>> '{}', E' \t\r\n')::numeric < 1e12 then btrim(v #>> '{}', E' \t\r\n')::numeric end
  end
$$;

-- a non-localized field's value (stored under the import's locale, the only key)
create or replace function public.storefront_value(field jsonb) returns jsonb
language sql immutable parallel safe as $$
  select case when jsonb_typeof(field) = 'object' then (select value from jsonb_each(field) limit 1) end
$$;

-- a non-empty string, else null
create or replace function public.storefront_text(v jsonb) returns text
language sql immutable parallel safe as $$
  select case when jsonb_typeof(v) = 'string' and (v #>> '{}') ~ '\S' then v #>> '{}' end
$$;

-- An offer's valid formats in order, each once: the format, its sku (its own, else the offer's for the
-- first listed, else `<offer sku>-<FORMAT>`) and its price (its own, else the offer's).
create or replace function public.storefront_formats(offer jsonb, allowed text[], fallback text)
returns table (ord integer, format text, sku text, price numeric)
language plpgsql immutable parallel safe as $$
declare
  offer_sku text := public.storefront_text(offer -> 'sku');
  offer_price numeric := public.storefront_amount(offer -> 'price');
  listed jsonb;
  entry jsonb;
  seen text[] := '{}';
  i integer := 0;
begin
  if jsonb_typeof(offer) is distinct from 'object' or offer_sku is null or offer_price is null then return; end if;
  listed := case when jsonb_typeof(offer -> 'formats') = 'array' and jsonb_array_length(offer -> 'formats') > 0
                 then offer -> 'formats' else jsonb_build_array(fallback) end;
  for entry in select value from jsonb_array_elements(listed) loop
    i := i + 1;
    format := case jsonb_typeof(entry) when 'string' then entry #>> '{}' when 'object' then entry ->> 'format' end;
    continue when format is null or not (format = any(allowed)) or format = any(seen);
    seen := seen || format;
    ord := i;
    sku := coalesce(public.storefront_text(entry -> 'sku'),
                    case when i = 1 then offer_sku else offer_sku || '-' || upper(format) end);
    price := coalesce(public.storefront_amount(entry -> 'price'), offer_price);
    return next;
  end loop;
end
$$;

-- What the catalog needs of a record, worked out once: its handle, the names it answers to (handle and
-- every sku: a good's sku; a book's unlock sku, format skus, and the print and download offers' own
-- skus) and its lowest price. Null handle: the record is not a product (no valid price or offer).
create or replace function public.storefront_product_of(model_id text, path text, fields jsonb,
  out handle text, out names text[], out min_price numeric)
language plpgsql immutable parallel safe as $$
declare
  base text := regexp_replace(regexp_replace(path, '^.*/', ''), '\.md$', '');
  offers jsonb;
  f record;
  sku text;
  price numeric;
  unlock_valid boolean;
  prices numeric[] := '{}';
  skus text[] := '{}';
  kind text;
begin
  if model_id = 'product' then
    sku := public.storefront_text(public.storefront_value(fields -> 'sku'));
    price := public.storefront_amount(public.storefront_value(fields -> 'price'));
    if sku is null or price is null then return; end if;
    handle := base;
    names := array(select distinct n from unnest(array[base, sku]) n);
    min_price := price;
    return;
  end if;
  if model_id <> 'book' then return; end if;
  offers := public.storefront_value(fields -> 'offers');
  if jsonb_typeof(offers) is distinct from 'object' then return; end if;
  unlock_valid := jsonb_typeof(offers -> 'unlock') = 'object'
    and public.storefront_text(offers -> 'unlock' -> 'sku') is not null
    and public.storefront_amount(offers -> 'unlock' -> 'price') is not null;
  if unlock_valid then
    prices := prices || public.storefront_amount(offers -> 'unlock' -> 'price');
    skus := skus || (offers -> 'unlock' ->> 'sku');
  end if;
  foreach kind in array array['print', 'download'] loop
    sku := null;
    for f in select * from public.storefront_formats(offers -> kind,
        case kind when 'print' then array['softcover', 'hardcover', 'premium'] else array['pdf', 'epub'] end,
        case kind when 'print' then 'softcover' else 'pdf' end) loop
      prices := prices || f.price;
      skus := skus || f.sku;
      sku := offers -> kind ->> 'sku';
    end loop;
    -- the offer's own sku names the product too, once the offer gives a format
    if sku is not null then skus := skus || sku; end if;
  end loop;
  if cardinality(prices) = 0 then return; end if;
  handle := base || case when unlock_valid then '' else '-print' end;
  names := array(select distinct n from unnest(array[handle] || skus) n where n is not null);
  min_price := (select min(p) from unnest(prices) p);
end
$$;

-- the text the `query` argument searches: title, summary, body and tags, every locale, lower case
create or replace function public.storefront_search_text(fields jsonb) returns text
language plpgsql immutable parallel safe as $$
declare
  parts text[] := '{}';
  field text;
  v jsonb;
begin
  foreach field in array array['title', 'summary', 'bodyMarkdown', 'tags'] loop
    continue when jsonb_typeof(fields -> field) is distinct from 'object';
    for v in select value from jsonb_each(fields -> field) loop
      if jsonb_typeof(v) = 'string' then parts := parts || (v #>> '{}');
      elsif jsonb_typeof(v) = 'array' then
        parts := parts || array(select x from jsonb_array_elements_text(v) x);
      end if;
    end loop;
  end loop;
  return lower(array_to_string(parts, ' '));
end
$$;

-- Published records that are products, one row each, kept by a trigger on content_entries (whoever
-- writes: the import, the management API, an administrator). Working the offers out of the record's
-- JSON costs about half a millisecond a record, so it is done once per write, never per read: a page
-- of the catalog is an index scan here.
create table public.storefront_products (
  entry_id text primary key,
  model_id text not null check (model_id in ('product', 'book')),
  kind text not null check (kind in ('good', 'book')),
  handle text not null,
  names text[] not null,
  min_price numeric not null,
  position text not null,
  search text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
alter table public.storefront_products enable row level security;
create index storefront_products_handle on public.storefront_products (handle);
create index storefront_products_names on public.storefront_products using gin (names);
create index storefront_products_position on public.storefront_products (position, handle);
create index storefront_products_price on public.storefront_products (min_price, handle);
create index storefront_products_created on public.storefront_products (created_at, handle);
create index storefront_products_updated on public.storefront_products (updated_at, handle);
create index storefront_products_kind on public.storefront_products (kind, position);

create policy "anyone reads the catalog" on public.storefront_products
  for select to anon, authenticated using (true);

create or replace function public.storefront_product_sync() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  p record;
begin
  if tg_op in ('DELETE', 'UPDATE') and old.stage = 'published' then
    delete from public.storefront_products where entry_id = old.id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.stage = 'published' and new.model_id in ('product', 'book') then
    p := public.storefront_product_of(new.model_id, new.path, new.fields);
    if p.handle is not null then
      insert into public.storefront_products (entry_id, model_id, kind, handle, names, min_price, position, search,
        created_at, updated_at)
      values (new.id, new.model_id, case new.model_id when 'book' then 'book' else 'good' end, p.handle, p.names,
        p.min_price, new.path, public.storefront_search_text(new.fields), new.created_at, new.updated_at);
    end if;
  end if;
  return null;
end
$$;
create trigger storefront_product_sync after insert or update or delete on public.content_entries
  for each row execute function public.storefront_product_sync();

-- what the site holds already
insert into public.storefront_products (entry_id, model_id, kind, handle, names, min_price, position, search, created_at, updated_at)
select e.id, e.model_id, case e.model_id when 'book' then 'book' else 'good' end, (p).handle, (p).names, (p).min_price,
  e.path, public.storefront_search_text(e.fields), e.created_at, e.updated_at
from (select e.*, public.storefront_product_of(e.model_id, e.path, e.fields) as p
      from public.content_entries e where e.stage = 'published' and e.model_id in ('product', 'book')) e
where (p).handle is not null;

-- The catalog as the store function reads it: each product with its record's fields.
create or replace view public.storefront_catalog with (security_invoker = true) as
select p.entry_id, p.model_id, p.kind, p.handle, p.names, p.min_price, p.position, p.search,
       e.fields, e.path, p.created_at, p.updated_at
from public.storefront_products p
join public.content_entries e on e.stage = 'published' and e.id = p.entry_id;

create or replace function public.storefront_collection_names(fields jsonb) returns text[]
language sql immutable parallel safe as $$
  select coalesce(array(select jsonb_array_elements_text(v) from (select public.storefront_value(fields -> 'products') v) x
                        where jsonb_typeof(v) = 'array'), '{}')
$$;

-- Published collection records: handle (file name) and the names they list, in order.
create or replace view public.storefront_collections with (security_invoker = true) as
select e.id as entry_id,
       regexp_replace(regexp_replace(e.path, '^.*/', ''), '\.md$', '') as handle,
       public.storefront_collection_names(e.fields) as names,
       e.path as position,
       e.fields,
       e.created_at,
       e.updated_at,
       public.storefront_search_text(e.fields) as search
from public.content_entries e
where e.stage = 'published' and e.model_id = 'collection';

create index storefront_collections_names on public.content_entries using gin (public.storefront_collection_names(fields))
  where stage = 'published' and model_id = 'collection';

grant select on public.storefront_products, public.storefront_catalog, public.storefront_collections to anon, authenticated;
grant all on public.storefront_products to service_role;
grant select on public.storefront_catalog, public.storefront_collections to service_role;
grant execute on function public.storefront_amount(jsonb), public.storefront_value(jsonb), public.storefront_text(jsonb),
  public.storefront_formats(jsonb, text[], text), public.storefront_product_of(text, text, jsonb),
  public.storefront_search_text(jsonb), public.storefront_collection_names(jsonb) to anon, authenticated, service_role;
