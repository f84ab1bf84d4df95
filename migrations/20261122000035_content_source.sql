-- Who owns a content row. `file`: the site import wrote it from the content directory. `hand`: it was
-- made or changed any other way (the management API, an administrator's SQL). In cloud mode the
-- database is the source of truth, so a re-import removes and rewrites only `file` rows and content
-- made through the API survives it; in git mode the directory owns every row (shared/site/import.ts).
--
-- The import names itself for its transaction (`sitewire.writer` = 'import'); a trigger marks every
-- other write `hand`, so no writer (API, admin, a script) has to remember to.

alter table public.content_entries
  add column source text not null default 'file' check (source in ('file', 'hand'));
alter table public.content_assets
  add column source text not null default 'file' check (source in ('file', 'hand'));
-- every row so far came from the import (the default above); from now on the trigger decides
alter table public.content_entries alter column source set default 'hand';
alter table public.content_assets alter column source set default 'hand';

create or replace function public.content_row_source() returns trigger
language plpgsql as $$
begin
  -- an update that changes nothing changes no owner either
  if tg_op = 'UPDATE' and old is not distinct from new then
    return new;
  end if;
  new.source := case when current_setting('sitewire.writer', true) = 'import' then 'file' else 'hand' end;
  return new;
end
$$;
-- named to run after content_*_change_seq (BEFORE triggers run in name order): the owner follows a
-- change, it never makes one of its own
create trigger content_entries_source before insert or update on public.content_entries
  for each row execute function public.content_row_source();
create trigger content_assets_source before insert or update on public.content_assets
  for each row execute function public.content_row_source();

revoke execute on function public.content_row_source() from public, anon, authenticated;

-- the import looks its own rows up by owner
create index content_entries_hand on public.content_entries (id) where source = 'hand';
create index content_assets_hand on public.content_assets (id) where source = 'hand';
