-- The site's community: posts, likes, reposts, follows, blocks and mutes of its people, spaces with a feed
-- channel, and notifications. The protocol server reads all of it as the reader, so these policies decide
-- who sees what. Rows an app wrote keep their record verbatim (record, cid, rkey) so getRecord answers
-- exactly what createRecord took; URIs are never stored (they follow the author's identity as it is now).
--
-- The database itself refuses (SQLSTATE NW400, which the protocol answers as InvalidRecord):
-- a reply or quote wider than its post, a reply, quote, like or repost across a block, and any write by a
-- suspended member.

create table public.community_posts (
  id bigint generated always as identity primary key,
  author_id uuid not null references public.profiles (id) on delete cascade,
  rkey text not null,
  cid text not null,
  record jsonb not null,
  text text not null default '',
  facets jsonb,
  embed jsonb,
  picture_count smallint not null default 0 check (picture_count between 0 and 4),
  has_video boolean not null default false,
  reply_root_id bigint references public.community_posts (id) on delete set null,
  reply_parent_id bigint references public.community_posts (id) on delete set null,
  quote_id bigint references public.community_posts (id) on delete set null,
  -- everyone for a member who joined the wider network, else the site's own people; set by the database
  audience text not null default 'site' check (audience in ('site', 'everyone')),
  created_at timestamptz not null default now(),
  indexed_at timestamptz not null default now(),
  unique (author_id, rkey)
);
alter table public.community_posts enable row level security;
create index community_posts_author on public.community_posts (author_id, indexed_at desc, id desc);
create index community_posts_recent on public.community_posts (indexed_at desc, id desc);
create index community_posts_parent on public.community_posts (reply_parent_id);
create index community_posts_root on public.community_posts (reply_root_id);
create index community_posts_quote on public.community_posts (quote_id);

create table public.community_likes (
  id bigint generated always as identity primary key,
  author_id uuid not null references public.profiles (id) on delete cascade,
  rkey text not null,
  cid text not null,
  record jsonb not null,
  post_id bigint not null references public.community_posts (id) on delete cascade,
  created_at timestamptz not null default now(),
  indexed_at timestamptz not null default now(),
  unique (author_id, rkey),
  unique (author_id, post_id)
);
alter table public.community_likes enable row level security;
create index community_likes_post on public.community_likes (post_id, indexed_at desc, id desc);

create table public.community_reposts (
  id bigint generated always as identity primary key,
  author_id uuid not null references public.profiles (id) on delete cascade,
  rkey text not null,
  cid text not null,
  record jsonb not null,
  post_id bigint not null references public.community_posts (id) on delete cascade,
  created_at timestamptz not null default now(),
  indexed_at timestamptz not null default now(),
  unique (author_id, rkey),
  unique (author_id, post_id)
);
alter table public.community_reposts enable row level security;
create index community_reposts_post on public.community_reposts (post_id, indexed_at desc, id desc);
create index community_reposts_author on public.community_reposts (author_id, indexed_at desc, id desc);

create table public.community_follows (
  id bigint generated always as identity primary key,
  author_id uuid not null references public.profiles (id) on delete cascade,
  rkey text not null,
  cid text not null,
  record jsonb not null,
  subject_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  indexed_at timestamptz not null default now(),
  unique (author_id, rkey),
  unique (author_id, subject_id),
  check (author_id <> subject_id)
);
alter table public.community_follows enable row level security;
create index community_follows_subject on public.community_follows (subject_id, indexed_at desc, id desc);

create table public.community_blocks (
  id bigint generated always as identity primary key,
  author_id uuid not null references public.profiles (id) on delete cascade,
  rkey text not null,
  cid text not null,
  record jsonb not null,
  subject_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  indexed_at timestamptz not null default now(),
  unique (author_id, rkey),
  unique (author_id, subject_id),
  check (author_id <> subject_id)
);
alter table public.community_blocks enable row level security;
create index community_blocks_subject on public.community_blocks (subject_id);

-- mutes are private: no record, only the muter sees them
create table public.community_mutes (
  person_id uuid not null references public.profiles (id) on delete cascade,
  subject_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (person_id, subject_id),
  check (person_id <> subject_id)
);
alter table public.community_mutes enable row level security;

-- Spaces: rooms of members; a space's feed channel shows in apps as a feed whose messages are posts,
-- whose answers are replies and whose hearts are likes.
create table public.community_spaces (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,14}$'),
  name text not null check (char_length(name) between 1 and 240),
  description text not null default '',
  created_by uuid references public.profiles (id) on delete set null,
  created_at timestamptz not null default now()
);
alter table public.community_spaces enable row level security;

create table public.community_space_members (
  space_id uuid not null references public.community_spaces (id) on delete cascade,
  person_id uuid not null references public.profiles (id) on delete cascade,
  role text not null default 'member' check (role in ('owner', 'moderator', 'member')),
  suspended_at timestamptz,
  joined_at timestamptz not null default now(),
  primary key (space_id, person_id)
);
alter table public.community_space_members enable row level security;
create index community_space_members_person on public.community_space_members (person_id);

create table public.community_channels (
  id uuid primary key default gen_random_uuid(),
  space_id uuid not null references public.community_spaces (id) on delete cascade,
  kind text not null check (kind in ('feed', 'chat')),
  name text not null,
  created_at timestamptz not null default now()
);
alter table public.community_channels enable row level security;
create unique index community_channels_one_feed on public.community_channels (space_id) where kind = 'feed';

create table public.community_messages (
  id bigint generated always as identity primary key,
  channel_id uuid not null references public.community_channels (id) on delete cascade,
  author_id uuid not null references public.profiles (id) on delete cascade,
  text text not null default '',
  facets jsonb,
  embed jsonb,
  parent_id bigint references public.community_messages (id) on delete set null,
  root_id bigint references public.community_messages (id) on delete set null,
  created_at timestamptz not null default now(),
  edited_at timestamptz
);
alter table public.community_messages enable row level security;
create index community_messages_channel on public.community_messages (channel_id, created_at desc, id desc);
create index community_messages_parent on public.community_messages (parent_id);

create table public.community_reactions (
  message_id bigint not null references public.community_messages (id) on delete cascade,
  person_id uuid not null references public.profiles (id) on delete cascade,
  kind text not null default 'heart' check (kind in ('heart')),
  -- the like record's key when an app made the heart; null when it was made on the site
  rkey text,
  created_at timestamptz not null default now(),
  primary key (message_id, person_id, kind)
);
alter table public.community_reactions enable row level security;
create unique index community_reactions_rkey on public.community_reactions (person_id, rkey) where rkey is not null;

create table public.community_notifications (
  id bigint generated always as identity primary key,
  recipient_id uuid not null references public.profiles (id) on delete cascade,
  actor_id uuid not null references public.profiles (id) on delete cascade,
  reason text not null check (reason in ('like', 'repost', 'follow', 'reply', 'quote')),
  like_id bigint references public.community_likes (id) on delete cascade,
  repost_id bigint references public.community_reposts (id) on delete cascade,
  follow_id bigint references public.community_follows (id) on delete cascade,
  post_id bigint references public.community_posts (id) on delete cascade,
  subject_post_id bigint references public.community_posts (id) on delete cascade,
  created_at timestamptz not null default now(),
  check (num_nonnulls(like_id, repost_id, follow_id, post_id) = 1)
);
alter table public.community_notifications enable row level security;
create index community_notifications_recipient on public.community_notifications (recipient_id, created_at desc, id desc);

-- Who may see what ----------------------------------------------------------------------------------------

-- A post is seen by everyone when its audience is everyone, else by the site's own people; a suspended
-- author's posts by nobody. Blocks do not hide rows here: a reader is shown a blocked post as blocked.
create or replace function public.network_sees_post(p_audience text, p_author uuid) returns boolean
language sql stable security definer set search_path = public as $$
  select exists (select 1 from public.profiles where id = p_author and suspended_at is null)
    and (p_audience = 'everyone' or public.network_is_member())
$$;

-- Is the caller a member (not suspended) of this space?
create or replace function public.network_in_space(p_space uuid) returns boolean
language sql stable security definer set search_path = public as $$
  select exists (
    select 1 from public.community_space_members m join public.profiles p on p.id = m.person_id
    where m.space_id = p_space and m.person_id = auth.uid() and m.suspended_at is null and p.suspended_at is null
  )
$$;

create or replace function public.network_space_of_channel(p_channel uuid) returns uuid
language sql stable security definer set search_path = public as $$
  select space_id from public.community_channels where id = p_channel
$$;

create or replace function public.network_space_of_message(p_message bigint) returns uuid
language sql stable security definer set search_path = public as $$
  select c.space_id from public.community_messages m join public.community_channels c on c.id = m.channel_id
  where m.id = p_message
$$;

grant execute on function public.network_sees_post(text, uuid), public.network_in_space(uuid),
  public.network_space_of_channel(uuid), public.network_space_of_message(bigint)
  to anon, authenticated, service_role;

create policy "readers see posts whose audience includes them" on public.community_posts
  for select to anon, authenticated using (public.network_sees_post(audience, author_id));
create policy "readers see likes of the posts they see" on public.community_likes
  for select to anon, authenticated using (
    public.network_sees_person(author_id)
    and exists (select 1 from public.community_posts p where p.id = post_id)
  );
create policy "readers see reposts of the posts they see" on public.community_reposts
  for select to anon, authenticated using (
    public.network_sees_person(author_id)
    and exists (select 1 from public.community_posts p where p.id = post_id)
  );
create policy "readers see follows between people they see" on public.community_follows
  for select to anon, authenticated using (
    public.network_sees_person(author_id) and public.network_sees_person(subject_id)
  );
create policy "readers see blocks between people they see" on public.community_blocks
  for select to anon, authenticated using (
    public.network_sees_person(author_id) and public.network_sees_person(subject_id)
  );
create policy "members see their own mutes" on public.community_mutes
  for select to authenticated using (person_id = auth.uid());
create policy "members mute people they see" on public.community_mutes
  for insert to authenticated with check (person_id = auth.uid() and public.network_sees_person(subject_id));
create policy "members unmute" on public.community_mutes
  for delete to authenticated using (person_id = auth.uid());
create policy "members see the spaces they belong to" on public.community_spaces
  for select to authenticated using (public.network_in_space(id));
create policy "members see who else is in their spaces" on public.community_space_members
  for select to authenticated using (public.network_in_space(space_id));
create policy "members see the channels of their spaces" on public.community_channels
  for select to authenticated using (public.network_in_space(space_id));
create policy "members see the messages of their spaces" on public.community_messages
  for select to authenticated using (public.network_in_space(public.network_space_of_channel(channel_id)));
create policy "members see the hearts in their spaces" on public.community_reactions
  for select to authenticated using (public.network_in_space(public.network_space_of_message(message_id)));
create policy "members see their own notifications" on public.community_notifications
  for select to authenticated using (recipient_id = auth.uid() and public.network_sees_person(actor_id));

revoke all on public.community_posts, public.community_likes, public.community_reposts,
  public.community_follows, public.community_blocks, public.community_mutes, public.community_spaces,
  public.community_space_members, public.community_channels, public.community_messages,
  public.community_reactions, public.community_notifications from anon, authenticated;
grant select on public.community_posts, public.community_likes, public.community_reposts,
  public.community_follows, public.community_blocks to anon, authenticated;
grant select, insert, delete on public.community_mutes to authenticated;
grant select on public.community_spaces, public.community_space_members, public.community_channels,
  public.community_messages, public.community_reactions, public.community_notifications to authenticated;
grant all on public.community_posts, public.community_likes, public.community_reposts,
  public.community_follows, public.community_blocks, public.community_mutes, public.community_spaces,
  public.community_space_members, public.community_channels, public.community_messages,
  public.community_reactions, public.community_notifications to service_role;

-- What the database refuses ----------------------------------------------------------------------------------

create or replace function public.network_refuse(message text) returns void
language plpgsql as $$
begin
  raise exception using errcode = 'NW400', message = message;
end
$$;

-- Is either of the two blocking the other?
create or replace function public.network_blocked_between(a uuid, b uuid) returns boolean
language sql stable security definer set search_path = public as $$
  select exists (
    select 1 from public.community_blocks
    where (author_id = a and subject_id = b) or (author_id = b and subject_id = a)
  )
$$;

create or replace function public.network_refuse_suspended_author() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if exists (select 1 from public.profiles where id = new.author_id and suspended_at is not null) then
    perform public.network_refuse('A suspended member cannot write.');
  end if;
  return new;
end
$$;

-- A post's audience is the author's (a client cannot ask), and it may not reach wider than, nor cross a
-- block with, the post it answers or quotes.
create or replace function public.community_posts_guard() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  target record;
begin
  new.audience := case
    when exists (select 1 from public.profiles where id = new.author_id and network_did is not null)
    then 'everyone' else 'site' end;
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

create or replace function public.community_subject_post_guard() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  post_author uuid;
begin
  select author_id into post_author from public.community_posts where id = new.post_id;
  if post_author is not null and post_author <> new.author_id
     and public.network_blocked_between(new.author_id, post_author) then
    perform public.network_refuse(format('A %s cannot cross a block.', tg_argv[0]));
  end if;
  return new;
end
$$;

create or replace function public.community_messages_guard() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  space uuid := public.network_space_of_channel(new.channel_id);
  parent_author uuid;
begin
  if not exists (
    select 1 from public.community_space_members
    where space_id = space and person_id = new.author_id and suspended_at is null
  ) then
    perform public.network_refuse('Only the space''s members who are not suspended can write in it.');
  end if;
  if new.parent_id is not null then
    select author_id into parent_author from public.community_messages where id = new.parent_id;
    if parent_author <> new.author_id and public.network_blocked_between(new.author_id, parent_author) then
      perform public.network_refuse('A reply cannot cross a block.');
    end if;
  end if;
  return new;
end
$$;

create or replace function public.community_reactions_guard() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if exists (select 1 from public.profiles where id = new.person_id and suspended_at is not null)
     or not exists (
       select 1 from public.community_space_members
       where space_id = public.network_space_of_message(new.message_id) and person_id = new.person_id
         and suspended_at is null) then
    perform public.network_refuse('Only the space''s members who are not suspended can react in it.');
  end if;
  return new;
end
$$;

create trigger community_posts_suspended before insert or update on public.community_posts
  for each row execute function public.network_refuse_suspended_author();
create trigger community_posts_guard before insert or update of reply_parent_id, reply_root_id, quote_id
  on public.community_posts for each row execute function public.community_posts_guard();
create trigger community_likes_suspended before insert on public.community_likes
  for each row execute function public.network_refuse_suspended_author();
create trigger community_likes_guard before insert on public.community_likes
  for each row execute function public.community_subject_post_guard('like');
create trigger community_reposts_suspended before insert on public.community_reposts
  for each row execute function public.network_refuse_suspended_author();
create trigger community_reposts_guard before insert on public.community_reposts
  for each row execute function public.community_subject_post_guard('repost');
create trigger community_follows_suspended before insert on public.community_follows
  for each row execute function public.network_refuse_suspended_author();
create trigger community_blocks_suspended before insert on public.community_blocks
  for each row execute function public.network_refuse_suspended_author();
create trigger community_messages_suspended before insert or update on public.community_messages
  for each row execute function public.network_refuse_suspended_author();
create trigger community_messages_guard before insert on public.community_messages
  for each row execute function public.community_messages_guard();
create trigger community_reactions_guard before insert on public.community_reactions
  for each row execute function public.community_reactions_guard();

-- Notifications, written in the same transaction as what they tell of (never to oneself) ----------------------

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
    select author_id into target from public.community_posts where id = new.reply_parent_id;
    if target is not null and target <> new.author_id then
      insert into public.community_notifications (recipient_id, actor_id, reason, post_id, subject_post_id, created_at)
      values (target, new.author_id, 'reply', new.id, new.reply_parent_id, new.indexed_at);
    end if;
    select author_id into target from public.community_posts where id = new.quote_id;
    if target is not null and target <> new.author_id then
      insert into public.community_notifications (recipient_id, actor_id, reason, post_id, subject_post_id, created_at)
      values (target, new.author_id, 'quote', new.id, new.quote_id, new.indexed_at);
    end if;
  end if;
  return null;
end
$$;

create trigger community_likes_notify after insert on public.community_likes
  for each row execute function public.community_notify();
create trigger community_reposts_notify after insert on public.community_reposts
  for each row execute function public.community_notify();
create trigger community_follows_notify after insert on public.community_follows
  for each row execute function public.community_notify();
create trigger community_posts_notify after insert on public.community_posts
  for each row execute function public.community_notify();
