-- The support desk (the support-api function, Chatwoot-compatible): agents' numbers, contacts,
-- conversations, messages with their attachments, and the desk's webhook subscriptions. The functions
-- write as the service role; staff (admin, support) read the whole desk under row-level security, a
-- signed-in person reads their own account contact's threads, and nobody else reads anything.

-- Chatwoot's clients know agents by integer ids (assignee_id, sender.id, the profile id); people are
-- uuids. Every profile gets a stable number here, made with the profile.
create table public.support_agents (
  id bigint generated always as identity primary key,
  person_id uuid not null unique references public.profiles (id) on delete cascade
);
alter table public.support_agents enable row level security;

insert into public.support_agents (person_id) select id from public.profiles order by created_at, id;

create or replace function public.support_agent_for_profile() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  insert into public.support_agents (person_id) values (new.id) on conflict (person_id) do nothing;
  return null;
end
$$;
create trigger profiles_support_agent after insert on public.profiles
  for each row execute function public.support_agent_for_profile();

-- A contact: a guest the widget made (kind guest), somebody who said who they are on another site
-- (user, never verified: setUser is the visitor's own word), or a signed-in person of this site (their
-- account contact: person_id set, verified, made server-side from the site's session; kind customer once
-- they have bought). The contact token (the client API's source_id) is the contact's secret: only its
-- SHA-256 hash is kept, and an account contact has none (it is reached through the session).
create table public.support_contacts (
  id bigint generated always as identity primary key,
  token_hash text unique check (token_hash ~ '^[0-9a-f]{64}$'),
  person_id uuid unique references auth.users (id) on delete cascade,
  kind text not null default 'guest' check (kind in ('guest', 'user', 'customer')),
  verified boolean not null default false,
  -- the site's user id (setUser's identifier, or the account's person id)
  identifier text check (char_length(identifier) <= 255),
  name text check (char_length(name) <= 255),
  email text check (char_length(email) <= 320),
  custom_attributes jsonb not null default '{}'::jsonb check (jsonb_typeof(custom_attributes) = 'object'),
  last_path text check (char_length(last_path) <= 2048),
  notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- the contact's last line, view or read: the desk's contact list is ordered by it
  last_seen_at timestamptz not null default now(),
  -- the contact's last line: the one-a-second guard takes its turn here, atomically
  last_line_at timestamptz,
  check (person_id is null or verified),
  check (token_hash is not null or person_id is not null)
);
alter table public.support_contacts enable row level security;
create index support_contacts_last_seen on public.support_contacts (last_seen_at desc, id desc);
create index support_contacts_identifier on public.support_contacts (identifier) where identifier is not null;

-- A conversation (thread) of a contact with the desk. pubsub_token names its live channel (the
-- ActionCable subscription a widget or a Chatwoot SDK opens). A chat grant's thread names its booking
-- and is assigned to the booking's host.
create table public.support_conversations (
  id bigint generated always as identity primary key,
  contact_id bigint not null references public.support_contacts (id) on delete cascade,
  status text not null default 'open' check (status in ('open', 'pending', 'resolved')),
  assignee_id bigint references public.support_agents (id) on delete set null,
  pubsub_token text not null unique default replace(gen_random_uuid()::text, '-', '')
    || replace(gen_random_uuid()::text, '-', ''),
  path text check (char_length(path) <= 2048),
  source text check (char_length(source) <= 255),
  prompt_id text,
  booking_id bigint references public.scheduling_bookings (id) on delete set null,
  custom_attributes jsonb not null default '{}'::jsonb check (jsonb_typeof(custom_attributes) = 'object'),
  labels text[] not null default '{}',
  contact_last_seen_at timestamptz,
  agent_last_seen_at timestamptz,
  -- the first contact line no agent has answered yet (null while nothing waits)
  waiting_since timestamptz,
  first_reply_created_at timestamptz,
  resolved_at timestamptz,
  -- when the one acknowledgement line was written
  acknowledged_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_activity_at timestamptz not null default now()
);
alter table public.support_conversations enable row level security;
create index support_conversations_contact on public.support_conversations (contact_id, last_activity_at desc, id desc);
create index support_conversations_desk on public.support_conversations (status, last_activity_at desc, id desc);
create index support_conversations_assignee on public.support_conversations (assignee_id, status);

-- A line: incoming (0, the contact's), outgoing (1, an agent's or the desk bot's), activity (2, the
-- desk's own: prompt, acknowledgement). text, or input_select (an offer of choices: content_attributes
-- { items: [{ title, value }], taken? }). A withdrawn line keeps its row with content null and
-- content_attributes.deleted; a voice note has content_attributes { kind: voice, seconds }.
create table public.support_messages (
  id bigint generated always as identity primary key,
  conversation_id bigint not null references public.support_conversations (id) on delete cascade,
  message_type smallint not null check (message_type in (0, 1, 2)),
  content text check (char_length(content) <= 150000),
  content_type text not null default 'text' check (content_type in ('text', 'input_select')),
  content_attributes jsonb not null default '{}'::jsonb check (jsonb_typeof(content_attributes) = 'object'),
  sender_contact_id bigint references public.support_contacts (id) on delete set null,
  sender_agent_id bigint references public.support_agents (id) on delete set null,
  echo_id text check (char_length(echo_id) <= 255),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- a contact writes incoming lines only; the desk's activity lines have no sender; an outgoing line
  -- without an agent is the desk bot's
  check (message_type <> 0 or sender_agent_id is null),
  check (message_type <> 1 or sender_contact_id is null),
  check (message_type <> 2 or (sender_contact_id is null and sender_agent_id is null))
);
alter table public.support_messages enable row level security;
create index support_messages_conversation on public.support_messages (conversation_id, created_at, id);

-- A line's files, kept through the storage interface (bucket support, key storage_key) and served by
-- signed one-hour addresses.
create table public.support_attachments (
  id bigint generated always as identity primary key,
  message_id bigint not null references public.support_messages (id) on delete cascade,
  file_type text not null check (file_type in ('image', 'audio', 'file')),
  extension text check (extension ~ '^[a-z0-9]{1,16}$'),
  content_type text not null,
  storage_key text not null unique,
  file_size bigint not null check (file_size >= 0),
  -- seconds, for audio
  duration numeric,
  created_at timestamptz not null default now()
);
alter table public.support_attachments enable row level security;
create index support_attachments_message on public.support_attachments (message_id, id);

-- The desk's webhook subscriptions. secret signs the deliveries (shown once, when made); it never
-- leaves the service role.
create table public.support_webhooks (
  id bigint generated always as identity primary key,
  url text not null check (url ~* '^https?://' and char_length(url) <= 2048),
  subscriptions text[] not null check (cardinality(subscriptions) > 0 and subscriptions <@ array[
    'conversation_created', 'conversation_status_changed', 'conversation_updated', 'message_created',
    'message_updated', 'contact_created', 'contact_updated', 'webwidget_triggered']::text[]),
  secret text not null,
  source text not null default 'hand' check (source in ('hand', 'file')),
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_at timestamptz,
  last_error text
);
alter table public.support_webhooks enable row level security;
create index support_webhooks_subscriptions on public.support_webhooks using gin (subscriptions);
create unique index support_webhooks_declared on public.support_webhooks (url) where source = 'file';

-- ---- who reads what ---------------------------------------------------------------------------------

-- security definer so the policies below can ask whose a contact or a conversation is without the
-- reader's own row-level security on those tables in the way
create or replace function public.support_owns_contact(contact bigint) returns boolean
language sql stable security definer set search_path = public, pg_temp as $$
  select exists (select 1 from public.support_contacts c where c.id = contact and c.person_id = auth.uid())
$$;
create or replace function public.support_owns_conversation(conversation bigint) returns boolean
language sql stable security definer set search_path = public, pg_temp as $$
  select exists (select 1 from public.support_conversations v join public.support_contacts c on c.id = v.contact_id
                 where v.id = conversation and c.person_id = auth.uid())
$$;
create or replace function public.support_owns_message(message bigint) returns boolean
language sql stable security definer set search_path = public, pg_temp as $$
  select exists (select 1 from public.support_messages m
                 join public.support_conversations v on v.id = m.conversation_id
                 join public.support_contacts c on c.id = v.contact_id
                 where m.id = message and c.person_id = auth.uid())
$$;

create policy "staff read the desk's agents" on public.support_agents
  for select to authenticated using (public.is_staff());
create policy "people read their own agent number" on public.support_agents
  for select to authenticated using (person_id = auth.uid());

create policy "staff read every contact of the desk" on public.support_contacts
  for select to authenticated using (public.is_staff());
create policy "people read their own account contact" on public.support_contacts
  for select to authenticated using (person_id = auth.uid());

create policy "staff read every conversation of the desk" on public.support_conversations
  for select to authenticated using (public.is_staff());
create policy "people read the conversations of their own account contact" on public.support_conversations
  for select to authenticated using (public.support_owns_contact(contact_id));

create policy "staff read every message of the desk" on public.support_messages
  for select to authenticated using (public.is_staff());
create policy "people read the messages of their own account contact's conversations" on public.support_messages
  for select to authenticated using (public.support_owns_conversation(conversation_id));

create policy "staff read every attachment of the desk" on public.support_attachments
  for select to authenticated using (public.is_staff());
create policy "people read the attachments of their own account contact's messages" on public.support_attachments
  for select to authenticated using (public.support_owns_message(message_id));

create policy "staff read the desk's webhooks" on public.support_webhooks
  for select to authenticated using (public.is_staff());

-- Supabase grants ALL on new tables to anon and authenticated: start from nothing, grant exactly.
revoke all on public.support_agents, public.support_contacts, public.support_conversations,
  public.support_messages, public.support_attachments, public.support_webhooks from anon, authenticated;
grant select on public.support_agents, public.support_conversations, public.support_messages,
  public.support_attachments to authenticated;
-- the token hash is the contact's secret: not even staff read it
grant select (id, person_id, kind, verified, identifier, name, email, custom_attributes, last_path, notes,
  created_at, updated_at, last_seen_at) on public.support_contacts to authenticated;
-- nor the webhooks' signing secret
grant select (id, url, subscriptions, source, created_by, created_at, updated_at, last_at, last_error)
  on public.support_webhooks to authenticated;
grant all on public.support_agents, public.support_contacts, public.support_conversations,
  public.support_messages, public.support_attachments, public.support_webhooks to service_role;

revoke execute on function public.support_agent_for_profile() from public, anon, authenticated;
revoke execute on function public.support_owns_contact(bigint), public.support_owns_conversation(bigint),
  public.support_owns_message(bigint) from public, anon;
grant execute on function public.support_owns_contact(bigint), public.support_owns_conversation(bigint),
  public.support_owns_message(bigint) to authenticated, service_role;
