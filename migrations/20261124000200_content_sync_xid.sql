-- Sync by finished transactions. A sequence number is taken when a row is written, not when its
-- transaction commits, so "every change up to the highest number I can see" is no safe mark: a change
-- still in flight may hold a lower number and become visible only after a client was told it had
-- everything up to there. Each change now also records the transaction that made it (change_xid), and
-- sync hands out marks in transaction ids instead: a delta covers the transactions from its token's mark
-- up to the oldest one still running (pg_snapshot_xmin), all of which have finished, so nothing can
-- appear behind a mark once it is given out (functions/content/store.ts, syncPage).

alter table public.content_entries add column change_xid xid8 not null default pg_current_xact_id();
alter table public.content_assets add column change_xid xid8 not null default pg_current_xact_id();
alter table public.content_tombstones add column change_xid xid8 not null default pg_current_xact_id();

create index content_entries_change_xid on public.content_entries (stage, change_xid, change_seq);
create index content_assets_change_xid on public.content_assets (published, change_xid, change_seq);
create index content_tombstones_change_xid on public.content_tombstones (stage, change_xid, change_seq);

-- the row's change: a fresh sequence number (change order within a transaction) and the transaction
create or replace function public.content_touch_change_seq() returns trigger
language plpgsql as $$
begin
  new.change_seq := nextval('public.content_change_seq');
  new.change_xid := pg_current_xact_id();
  return new;
end
$$;

-- a tombstone written again (the entry deleted once more) is a new change of the deleting transaction
create or replace function public.content_tombstone_change_xid() returns trigger
language plpgsql as $$
begin
  new.change_xid := pg_current_xact_id();
  return new;
end
$$;
create trigger content_tombstones_change_xid before update on public.content_tombstones
  for each row execute function public.content_tombstone_change_xid();

revoke execute on function public.content_tombstone_change_xid() from public, anon, authenticated;
