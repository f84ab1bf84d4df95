-- How many responses a form has, submitted and not, kept by triggers: a responses page carries the
-- total (Typeform's total_items), and counting a form's rows on every request grows with the form (a
-- form of a million responses took longer to count than to page). Filtered lists (since, until, query,
-- answered fields, tokens) still count their matches; the unfiltered and completed-only lists, which are
-- what clients page through, read these rows.
--
-- Each form's count is split over 8 rows chosen by the response's token, so that submissions arriving
-- together for one form do not all wait on one counter row until their transactions commit.
create table public.form_response_counts (
  form text not null,
  submitted boolean not null,
  shard smallint not null,
  responses bigint not null,
  primary key (form, submitted, shard)
);
alter table public.form_response_counts enable row level security;
-- no policies: only the service role reads them (the responses API); the triggers write as their owner
revoke all on public.form_response_counts from anon, authenticated;
grant all on public.form_response_counts to service_role;

create or replace function public.form_response_shard(token text) returns smallint
language sql immutable parallel safe as $$ select (hashtext(token) & 7)::smallint $$;

-- Adds each changed group's difference, per statement (a bulk insert or delete adds once per group).
create or replace function public.form_response_counts_apply(changes jsonb) returns void
language sql volatile security definer set search_path = '' as $$
  insert into public.form_response_counts as c (form, submitted, shard, responses)
  select d.form, d.submitted, d.shard, sum(d.delta)
  from jsonb_to_recordset(changes) as d(form text, submitted boolean, shard smallint, delta bigint)
  group by 1, 2, 3
  having sum(d.delta) <> 0
  order by 1, 2, 3 -- one order for every writer: two bulk statements never lock each other's rows crosswise
  on conflict (form, submitted, shard) do update set responses = c.responses + excluded.responses
$$;
revoke execute on function public.form_response_counts_apply(jsonb) from public, anon, authenticated;

-- Inserted responses count up, deleted ones down: one function for both statements, whose rows come
-- as the transition table `changed`.
create or replace function public.form_response_counts_after_statement() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform public.form_response_counts_apply((
    select jsonb_agg(jsonb_build_object('form', form, 'submitted', submitted, 'shard', shard,
                                        'delta', case when tg_op = 'DELETE' then -n else n end))
    from (select form, submitted_at is not null as submitted, public.form_response_shard(token) as shard,
                 count(*) as n
          from changed group by 1, 2, 3) g));
  return null;
end
$$;

-- A response submitted (or, by hand, moved to another form or given another token) leaves one group for
-- another; a row trigger with a condition, so that saving progress, which changes none of these, costs
-- nothing here.
create or replace function public.form_response_counts_after_move() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform public.form_response_counts_apply(jsonb_build_array(
    jsonb_build_object('form', old.form, 'submitted', old.submitted_at is not null,
                       'shard', public.form_response_shard(old.token), 'delta', -1),
    jsonb_build_object('form', new.form, 'submitted', new.submitted_at is not null,
                       'shard', public.form_response_shard(new.token), 'delta', 1)));
  return null;
end
$$;

create trigger form_response_counts_insert after insert on public.form_responses
  referencing new table as changed for each statement execute function public.form_response_counts_after_statement();
create trigger form_response_counts_delete after delete on public.form_responses
  referencing old table as changed for each statement execute function public.form_response_counts_after_statement();
create trigger form_response_counts_move after update of form, token, submitted_at on public.form_responses
  for each row when (old.form is distinct from new.form or old.token is distinct from new.token
                     or (old.submitted_at is null) <> (new.submitted_at is null))
  execute function public.form_response_counts_after_move();

-- the responses stored before the counts existed
insert into public.form_response_counts (form, submitted, shard, responses)
select form, submitted_at is not null, public.form_response_shard(token), count(*)
from public.form_responses group by 1, 2, 3;
