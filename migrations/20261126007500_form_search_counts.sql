-- How many of a form's responses match a search, kept per form and query once a search is asked, so a
-- search's total_items (Typeform: the number of items in the retrieved collection) costs a row read
-- however many responses match. Counting the matches visits each one's heap row: GIN has no index-only
-- scans, and PostgreSQL's bitmap scans no longer skip all-visible pages (the skip was found unsafe in
-- 2024; on 15.20 a count over an all-visible table reads every page it names), so a search matching
-- 33,000 responses of a form of a million took 200 to 500 ms to count, against 1 ms for its first page. A client paging through a search
-- (`before=` the last token, as the vendor's client does) asked for that count again on every page.
--
-- A search is kept the first time it is asked (form_search_count below counts it) and then follows every
-- insert, delete, submission, saved answer and move of the form's responses, through the triggers here,
-- in the transaction that makes the change. A form keeps its 32 latest searches.
--
-- A count being taken and a response being written must not miss each other: the count runs under an
-- exclusive advisory lock on the form's bucket, every write to the form's responses takes that lock
-- shared before it adjusts the kept counts, and each statement after a lock takes a fresh snapshot
-- (READ COMMITTED, PostgreSQL's default and every writer's here). So a write either finished before the
-- count (the count sees it; the kept row did not exist for it to adjust) or adjusts the kept row after
-- the count committed.
create table public.form_search_counts (
  form text not null,
  -- the query as the API builds it from `query` (searchQuery: `'harbor':* & 'tea':*`)
  query text not null,
  terms tsquery not null,
  submitted bigint not null,
  open bigint not null,
  kept_at timestamptz not null default now(),
  primary key (form, query)
);
alter table public.form_search_counts enable row level security;
-- no policies: only the service role reads them (the responses API); the functions write as their owner
revoke all on public.form_search_counts from anon, authenticated;
grant all on public.form_search_counts to service_role;

-- The advisory lock of a form's kept searches: 64 buckets by the form's name, so that a bulk write over
-- many forms takes at most 64 locks.
create or replace function public.form_search_lock_key(form text) returns integer
language sql immutable parallel safe as $$ select hashtext(form) & 63 $$;

-- The first number of the two-number advisory lock: the kept searches' own space.
create or replace function public.form_search_lock_space() returns integer
language sql immutable parallel safe as $$ select 7316104 $$;

-- A search's counts (submitted, still open): the kept ones, or counted now and kept.
create or replace function public.form_search_count(p_form text, p_query text, out submitted bigint, out open bigint)
language plpgsql volatile security definer set search_path = '' as $$
begin
  select k.submitted, k.open into submitted, open
  from public.form_search_counts k where k.form = p_form and k.query = p_query;
  if found then return; end if;
  if current_setting('transaction_isolation') <> 'read committed' then
    -- one snapshot for the whole transaction: a write committed while the lock was awaited would be
    -- missed by the count, so count without keeping
    select count(*) filter (where r.submitted_at is not null), count(*) filter (where r.submitted_at is null)
      into submitted, open
    from public.form_responses r where r.form = p_form and r.search @@ to_tsquery('simple', p_query);
    return;
  end if;
  perform pg_advisory_xact_lock(public.form_search_lock_space(), public.form_search_lock_key(p_form));
  -- another request may have kept it while this one waited
  select k.submitted, k.open into submitted, open
  from public.form_search_counts k where k.form = p_form and k.query = p_query;
  if found then return; end if;
  insert into public.form_search_counts as k (form, query, terms, submitted, open)
  select p_form, p_query, to_tsquery('simple', p_query),
         count(*) filter (where r.submitted_at is not null), count(*) filter (where r.submitted_at is null)
  from public.form_responses r
  where r.form = p_form and r.search @@ to_tsquery('simple', p_query)
  returning k.submitted, k.open into submitted, open;
  delete from public.form_search_counts k
  where k.form = p_form and k.query in (
    select o.query from public.form_search_counts o where o.form = p_form order by o.kept_at desc, o.query offset 32);
end
$$;
revoke execute on function public.form_search_count(text, text) from public, anon, authenticated;
grant execute on function public.form_search_count(text, text) to service_role;

-- Inserted responses count up, deleted ones down, in every kept search they match.
create or replace function public.form_search_counts_after_statement() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  sign integer := case when tg_op = 'DELETE' then -1 else 1 end;
begin
  -- in one order, so two writers over several forms never wait on each other crosswise
  perform pg_advisory_xact_lock_shared(public.form_search_lock_space(), b.key)
  from (select distinct public.form_search_lock_key(form) as key from changed order by 1) b;
  update public.form_search_counts k
     set submitted = k.submitted + sign * d.submitted, open = k.open + sign * d.open
    from (select k2.form, k2.query,
                 count(*) filter (where c.submitted_at is not null) as submitted,
                 count(*) filter (where c.submitted_at is null) as open
          from public.form_search_counts k2 join changed c on c.form = k2.form and c.search @@ k2.terms
          group by 1, 2) d
   where k.form = d.form and k.query = d.query;
  return null;
end
$$;

-- A response whose words, submission or form change leaves the kept searches it matched and joins the
-- ones it matches now (saving progress changes the words: a row trigger, as one response changes).
create or replace function public.form_search_counts_after_update() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform pg_advisory_xact_lock_shared(public.form_search_lock_space(), b.key)
  from (select distinct public.form_search_lock_key(f) as key from unnest(array[old.form, new.form]) as f order by 1) b;
  update public.form_search_counts k
     set submitted = k.submitted + d.submitted, open = k.open + d.open
    from (select k2.form, k2.query,
                 (k2.form = new.form and new.submitted_at is not null and new.search @@ k2.terms)::int
                   - (k2.form = old.form and old.submitted_at is not null and old.search @@ k2.terms)::int as submitted,
                 (k2.form = new.form and new.submitted_at is null and new.search @@ k2.terms)::int
                   - (k2.form = old.form and old.submitted_at is null and old.search @@ k2.terms)::int as open
          from public.form_search_counts k2
          where k2.form in (old.form, new.form)) d
   where k.form = d.form and k.query = d.query and (d.submitted <> 0 or d.open <> 0);
  return null;
end
$$;

create trigger form_search_counts_insert after insert on public.form_responses
  referencing new table as changed for each statement execute function public.form_search_counts_after_statement();
create trigger form_search_counts_delete after delete on public.form_responses
  referencing old table as changed for each statement execute function public.form_search_counts_after_statement();
create trigger form_search_counts_update after update of form, search_text, submitted_at on public.form_responses
  for each row when (old.form is distinct from new.form or old.search_text is distinct from new.search_text
                     or (old.submitted_at is null) <> (new.submitted_at is null))
  execute function public.form_search_counts_after_update();

-- Emptied at once, the responses leave no search to keep.
create or replace function public.form_search_counts_after_truncate() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from public.form_search_counts;
  return null;
end
$$;
create trigger form_search_counts_truncate after truncate on public.form_responses
  for each statement execute function public.form_search_counts_after_truncate();
