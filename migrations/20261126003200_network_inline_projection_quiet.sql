-- An API write of a joined member projects its own paths inside its transaction (it names the member
-- in sitewire.network_projecting when it locks their repository), so the queue's NOTIFY for that member
-- only woke every instance's projector to find nothing left: three statements and a pass of work for
-- each write. The notification now goes out for everybody else's paths alone (a change by the admin or
-- SQL, or another member's rows touched by the same transaction).
create or replace function public.network_queue_path(person uuid, path text) returns void
language plpgsql security definer set search_path = public as $$
begin
  if person is null or not exists (select 1 from network_accounts a where a.person_id = person) then
    return;
  end if;
  insert into network_project_queue (person_id, path) values (person, path) on conflict do nothing;
  if coalesce(current_setting('sitewire.network_projecting', true), '') <> person::text then
    perform pg_notify('network_project', person::text);
  end if;
  if coalesce(current_setting('sitewire.network_project_called', true), '') = '' then
    perform public.sitewire_call_function('network', '/internal/project');
    perform set_config('sitewire.network_project_called', 'called', true);
  end if;
end $$;
revoke all on function public.network_queue_path(uuid, text) from public, anon, authenticated;
