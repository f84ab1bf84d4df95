-- Indexes for the reads apps make beyond the timeline: the quotes of a post (getQuotes), a member's own
-- likes and hearts (getActorLikes) and post search (searchPosts), each paged newest first by
-- (time, id) so a page is an index range, never a sort of everything.

-- the quotes of one post, newest first (replaces the plain index on quote_id)
create index community_posts_quote_recent on public.community_posts (quote_id, indexed_at desc, id desc)
  where quote_id is not null;
drop index if exists public.community_posts_quote;

-- a member's likes, newest first
create index community_likes_author on public.community_likes (author_id, indexed_at desc, id desc);

-- a member's hearts on spaces' messages (likes of a space's post), newest first
create index community_reactions_person on public.community_reactions (person_id, created_at desc, message_id desc)
  where kind = 'heart';

-- post search: the words of a post's text, each query word a prefix (the same 'simple' configuration
-- as actor search, so it favours no language)
create index community_posts_words on public.community_posts using gin (to_tsvector('simple', text));
