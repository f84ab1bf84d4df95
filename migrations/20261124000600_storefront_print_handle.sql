-- A print-only book's handle is `<slug>-print` (spec: Store product mapping, "the unlock product's file
-- name, else <slug>-print"), the slug being the record's own slug field and the file name only when the
-- record has none; a book with an unlock keeps its file name. storefront_product_of is replaced with that
-- rule (functions/storefront-api/domain/catalog.ts holds the same), and the products already worked out
-- are worked out again.
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
  handle := case when unlock_valid then base
                 else coalesce(public.storefront_text(public.storefront_value(fields -> 'slug')), base) || '-print' end;
  names := array(select distinct n from unnest(array[handle] || skus) n where n is not null);
  min_price := (select min(p) from unnest(prices) p);
end
$$;

update public.storefront_products p
set handle = (x.product).handle, names = (x.product).names
from (select e.id, public.storefront_product_of(e.model_id, e.path, e.fields) as product
      from public.content_entries e where e.stage = 'published' and e.model_id = 'book') x
where p.entry_id = x.id and (x.product).handle is not null
  and ((x.product).handle, (x.product).names) is distinct from (p.handle, p.names);
