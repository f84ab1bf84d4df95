-- Most posts answer and quote nothing, yet every insert ran the post guard's join over its three
-- (null) reply and quote ids and the notification trigger's two lookups by them: plans and executor
-- starts for nothing, inside the author's repository lock (about a tenth of the database's time per
-- commit in the federation bench went to these triggers). The guard now looks only when there is an id
-- to look up; the notification trigger fires only for a post that answers or quotes, and each of its
-- lookups runs only when its id is there. What either refuses or notifies is unchanged.

create or replace function public.community_posts_guard() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  target record;
begin
  new.audience := case
    when exists (select 1 from public.profiles where id = new.author_id and network_did is not null)
    then 'everyone' else 'site' end;
  if new.reply_parent_id is null and new.reply_root_id is null and new.quote_id is null then
    return new;
  end if;
  for target in
    select p.id, p.audience, p.author_id, k.what
    from public.community_posts p
    join (values (new.reply_parent_id, 'reply'), (new.reply_root_id, 'reply'), (new.quote_id, 'quote'))
      as k (post_id, what) on k.post_id = p.id
  loop
    if new.audience = 'everyone' and target.audience = 'site' then
      perform public.network_refuse(format(
        'A %s cannot reach further than the post it answers: that post is for the site''s own people only.',
        target.what));
    end if;
    if target.author_id <> new.author_id and public.network_blocked_between(new.author_id, target.author_id) then
      perform public.network_refuse(format('A %s cannot cross a block.', target.what));
    end if;
  end loop;
  return new;
end
$$;

create or replace function public.community_notify() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  target uuid;
begin
  if tg_table_name = 'community_likes' or tg_table_name = 'community_reposts' then
    select author_id into target from public.community_posts where id = new.post_id;
    if target is not null and target <> new.author_id then
      insert into public.community_notifications (recipient_id, actor_id, reason, like_id, repost_id, subject_post_id, created_at)
      values (target, new.author_id,
              case when tg_table_name = 'community_likes' then 'like' else 'repost' end,
              case when tg_table_name = 'community_likes' then new.id end,
              case when tg_table_name = 'community_reposts' then new.id end,
              new.post_id, new.indexed_at);
    end if;
  elsif tg_table_name = 'community_follows' then
    insert into public.community_notifications (recipient_id, actor_id, reason, follow_id, created_at)
    values (new.subject_id, new.author_id, 'follow', new.id, new.indexed_at);
  elsif tg_table_name = 'community_posts' then
    if new.reply_parent_id is not null then
      select author_id into target from public.community_posts where id = new.reply_parent_id;
      if target is not null and target <> new.author_id then
        insert into public.community_notifications (recipient_id, actor_id, reason, post_id, subject_post_id, created_at)
        values (target, new.author_id, 'reply', new.id, new.reply_parent_id, new.indexed_at);
      end if;
    end if;
    if new.quote_id is not null then
      select author_id into target from public.community_posts where id = new.quote_id;
      if target is not null and target <> new.author_id then
        insert into public.community_notifications (recipient_id, actor_id, reason, post_id, subject_post_id, created_at)
        values (target, new.author_id, 'quote', new.id, new.quote_id, new.indexed_at);
      end if;
    end if;
  end if;
  return null;
end
$$;

-- a post that answers and quotes nothing notifies nobody: the trigger is not called for it at all
drop trigger community_posts_notify on public.community_posts;
create trigger community_posts_notify after insert on public.community_posts
  for each row when (new.reply_parent_id is not null or new.quote_id is not null)
  execute function public.community_notify();
