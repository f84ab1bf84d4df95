-- The projection's statements (migration network_projection_statements) looked rows up with
-- `key = any (<array>)` beside the member alone, which the planner served, while the tables' statistics
-- were young (a fresh deployment's first minutes, the bench's whole run), as a pass over all the member's
-- rows: their posts by (author, time), their blocks by (person, rev), their record index by its primary
-- key's first column with the path as a filter. So every write read the whole repository, growing with
-- it. Each row is now looked up by its own key, one probe each, whatever the statistics say: a lateral
-- lookup per key that the planner may not flatten into a join (offset 0), or a loop for deletes.

create or replace function public.network_table_records(person uuid, paths text[])
returns table (path text, record jsonb)
language plpgsql stable set search_path = public, pg_temp as $$
declare
  wanted record;
begin
  if paths is null then
    return query
      select 'app.bsky.feed.post/' || t.rkey, t.record from community_posts t
        where t.author_id = person and t.audience = 'everyone'
      union all
      select 'app.bsky.feed.like/' || t.rkey, t.record from community_likes t where t.author_id = person
      union all
      select 'app.bsky.feed.repost/' || t.rkey, t.record from community_reposts t where t.author_id = person
      union all
      select 'app.bsky.graph.follow/' || t.rkey, t.record from community_follows t where t.author_id = person
      union all
      select 'app.bsky.graph.block/' || t.rkey, t.record from community_blocks t where t.author_id = person
      union all
      select 'app.bsky.actor.profile/self', coalesce(p.network_profile, jsonb_strip_nulls(jsonb_build_object(
          '$type', 'app.bsky.actor.profile',
          'displayName', nullif(p.display_name, ''),
          'description', nullif(p.description, ''))))
        from profiles p where p.id = person;
    return;
  end if;
  -- by collection, so that a write's one path costs the one probe of its table's (author, rkey) key
  for wanted in
    select split_part(w, '/', 1) as collection, array_agg(distinct split_part(w, '/', 2)) as rkeys
    from unnest(paths) w group by 1
  loop
    if wanted.collection = 'app.bsky.feed.post' then
      return query select 'app.bsky.feed.post/' || t.rkey, t.record from unnest(wanted.rkeys) k (rkey)
        cross join lateral (select x.rkey, x.record from community_posts x
          where x.author_id = person and x.rkey = k.rkey and x.audience = 'everyone' offset 0) t;
    elsif wanted.collection = 'app.bsky.feed.like' then
      return query select 'app.bsky.feed.like/' || t.rkey, t.record from unnest(wanted.rkeys) k (rkey)
        cross join lateral (select x.rkey, x.record from community_likes x
          where x.author_id = person and x.rkey = k.rkey offset 0) t;
    elsif wanted.collection = 'app.bsky.feed.repost' then
      return query select 'app.bsky.feed.repost/' || t.rkey, t.record from unnest(wanted.rkeys) k (rkey)
        cross join lateral (select x.rkey, x.record from community_reposts x
          where x.author_id = person and x.rkey = k.rkey offset 0) t;
    elsif wanted.collection = 'app.bsky.graph.follow' then
      return query select 'app.bsky.graph.follow/' || t.rkey, t.record from unnest(wanted.rkeys) k (rkey)
        cross join lateral (select x.rkey, x.record from community_follows x
          where x.author_id = person and x.rkey = k.rkey offset 0) t;
    elsif wanted.collection = 'app.bsky.graph.block' then
      return query select 'app.bsky.graph.block/' || t.rkey, t.record from unnest(wanted.rkeys) k (rkey)
        cross join lateral (select x.rkey, x.record from community_blocks x
          where x.author_id = person and x.rkey = k.rkey offset 0) t;
    elsif wanted.collection = 'app.bsky.actor.profile' then
      return query select 'app.bsky.actor.profile/self', coalesce(p.network_profile, jsonb_strip_nulls(jsonb_build_object(
          '$type', 'app.bsky.actor.profile',
          'displayName', nullif(p.display_name, ''),
          'description', nullif(p.description, ''))))
        from profiles p where p.id = person;
    end if;
  end loop;
end $$;
revoke all on function public.network_table_records(uuid, text[]) from public, anon, authenticated;
grant execute on function public.network_table_records(uuid, text[]) to service_role;

create or replace function public.network_projection_inputs(person uuid, take_queue boolean, likely text[])
returns table (
  queued text[],
  did text,
  signing_key text,
  signing_did_key text,
  handle text,
  status text,
  username text,
  suspended_at timestamptz,
  rev text,
  commit_cid text,
  data_cid text,
  records jsonb,
  held jsonb
)
language plpgsql volatile set search_path = public, pg_temp as $$
declare
  head record;
begin
  select r.rev, r.commit_cid, r.data_cid into head from network_repos r where r.person_id = person for update;
  if take_queue then
    with taken as (delete from network_project_queue q where q.person_id = person returning q.path)
    select coalesce(array_agg(taken.path), '{}') into queued from taken;
  end if;
  select a.did, a.signing_key, a.signing_did_key, a.handle, a.status, p.username, p.suspended_at
    into did, signing_key, signing_did_key, handle, status, username, suspended_at
    from network_accounts a join profiles p on p.id = a.person_id where a.person_id = person;
  rev := head.rev;
  commit_cid := head.commit_cid;
  data_cid := head.data_cid;
  if coalesce(cardinality(likely), 0) > 0 then
    select coalesce(jsonb_object_agg(t.path, t.record), '{}') into records
      from network_table_records(person, likely) t;
    select coalesce(jsonb_object_agg(r.path, r.cid), '{}') into held
      from (select distinct l.path from unnest(likely) l (path)) l
      cross join lateral (select x.path, x.cid from network_repo_records x
        where x.person_id = person and x.path = l.path offset 0) r;
  end if;
  return next;
end $$;
revoke all on function public.network_projection_inputs(uuid, boolean, text[]) from public, anon, authenticated;
grant execute on function public.network_projection_inputs(uuid, boolean, text[]) to service_role;

create or replace function public.network_keep_commit(
  person uuid,
  commit_rev text,
  commit_cid text,
  data_cid text,
  block_cids text[],
  block_bytes bytea,
  block_lengths integer[],
  removed text[],
  paths text[],
  path_cids text[],
  event_did text,
  event_kind text,
  event_body bytea,
  at timestamptz
) returns void
language plpgsql volatile set search_path = public, pg_temp as $$
declare
  gone text;
begin
  if coalesce(cardinality(block_cids), 0) <> coalesce(cardinality(block_lengths), 0)
    or coalesce(cardinality(paths), 0) <> coalesce(cardinality(path_cids), 0) then
    raise exception 'network_keep_commit: each block needs its length and each path its cid';
  end if;
  foreach gone in array coalesce(removed, '{}') loop
    delete from network_repo_blocks b where b.person_id = person and b.cid = gone;
  end loop;
  if coalesce(cardinality(block_cids), 0) > 0 then
    insert into network_repo_blocks (person_id, cid, rev, bytes)
    select person, n.cid, commit_rev,
      substring(block_bytes from (sum(n.len) over (order by n.i) - n.len + 1)::integer for n.len)
    from unnest(block_cids, block_lengths) with ordinality as n (cid, len, i)
    on conflict do nothing;
  end if;
  for gone in select u.path from unnest(paths, path_cids) as u (path, cid) where u.cid is null loop
    delete from network_repo_records r where r.person_id = person and r.path = gone;
  end loop;
  insert into network_repo_records (person_id, path, cid)
    select person, u.path, u.cid from unnest(paths, path_cids) as u (path, cid) where u.cid is not null
    on conflict (person_id, path) do update set cid = excluded.cid;
  insert into network_repos (person_id, rev, commit_cid, data_cid, updated_at)
    values (person, commit_rev, commit_cid, data_cid, at)
    on conflict (person_id) do update set rev = excluded.rev, commit_cid = excluded.commit_cid,
      data_cid = excluded.data_cid, updated_at = excluded.updated_at;
  if event_kind is not null then
    insert into network_seq (did, kind, body) values (event_did, event_kind, event_body);
  end if;
end $$;
revoke all on function public.network_keep_commit(uuid, text, text, text, text[], bytea, integer[], text[], text[], text[], text, text, bytea, timestamptz)
  from public, anon, authenticated;
grant execute on function public.network_keep_commit(uuid, text, text, text, text[], bytea, integer[], text[], text[], text[], text, text, bytea, timestamptz)
  to service_role;
