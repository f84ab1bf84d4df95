-- The support desk's wire shapes, its bookkeeping, its webhooks and its live channel.
--
-- The JSON builders below are the one definition of a message, a conversation, a contact and an agent as
-- the Chatwoot-compatible APIs show them: the support-api function reads its answers through them and
-- the triggers build the webhook payloads with them, so an API answer and a delivery never disagree.
--
-- Webhooks: triggers on messages, conversations and contacts write one webhook_outbox row (api
-- `support`) per subscription that wants the event, in the transaction of the change; nothing is written
-- while no subscription wants it. The dispatcher signs (X-Chatwoot-Signature) and sends them.
--
-- Live channel: NOTIFY support_live with a small JSON payload (see support_live below) when a line is
-- made or changed, when a conversation's status changes, and when somebody types; the ActionCable route
-- listens and pushes to the subscribers of the conversation's pubsub_token.

-- every event a subscription may name; the first five are sent, the other three never are
create or replace function public.support_webhook_events() returns text[]
language sql immutable as $$
  select array['conversation_created', 'conversation_status_changed', 'conversation_updated', 'message_created',
    'contact_created', 'message_updated', 'contact_updated', 'webwidget_triggered']
$$;

create or replace function public.support_epoch(at timestamptz) returns bigint
language sql immutable as $$ select coalesce(floor(extract(epoch from at))::bigint, 0) $$;

create or replace function public.support_desk_name() returns text
language sql stable as $$
  select coalesce(nullif(s.config -> 'support' ->> 'name', ''), s.name, 'Support')
  from (select 1) one left join public.site_settings s on true
$$;

create or replace function public.support_account_json() returns jsonb
language sql stable as $$
  select jsonb_build_object('id', 1, 'name', coalesce((select name from public.site_settings), 'Support'))
$$;

create or replace function public.support_inbox_json() returns jsonb
language sql stable as $$ select jsonb_build_object('id', 1, 'name', public.support_desk_name()) $$;

create or replace function public.support_agent_json(agent_id bigint) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', a.id, 'account_id', 1, 'name', coalesce(nullif(p.display_name, ''), p.email),
    'available_name', coalesce(nullif(p.display_name, ''), p.email), 'email', p.email,
    'role', case when p.role = 'admin' then 'administrator' else 'agent' end,
    'availability_status', 'online', 'auto_offline', true, 'confirmed', true, 'thumbnail', '')
  from public.support_agents a join public.profiles p on p.id = a.person_id
  where a.id = agent_id
$$;

-- the contact as the desk sees it; the contact's token never appears (source_id is null)
create or replace function public.support_contact_json(c public.support_contacts) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', c.id, 'name', coalesce(c.name, case when c.kind = 'guest' then 'Guest' else '' end),
    'email', c.email, 'phone_number', null, 'identifier', c.identifier, 'thumbnail', '',
    'availability_status', 'offline', 'type', 'contact',
    'custom_attributes', c.custom_attributes,
    'additional_attributes', jsonb_build_object(
      'kind', c.kind, 'verified', c.verified, 'last_path', c.last_path, 'notes', c.notes,
      'orders', coalesce((
        select jsonb_agg(jsonb_build_object('id', o.id, 'status', o.status, 'currency', o.currency,
                 'amount_total', o.amount_total, 'created_at', public.support_epoch(o.created_at)) order by o.created_at desc)
        from (select * from public.storefront_orders o where c.person_id is not null and o.person_id = c.person_id
              order by o.created_at desc limit 10) o), '[]'::jsonb)),
    'contact_inboxes', jsonb_build_array(jsonb_build_object('source_id', null, 'inbox', jsonb_build_object(
      'id', 1, 'name', public.support_desk_name(), 'channel_type', 'Channel::WebWidget'))),
    'created_at', public.support_epoch(c.created_at),
    'last_activity_at', public.support_epoch(c.last_seen_at))
$$;

create or replace function public.support_sender_json(contact_id bigint, agent_id bigint) returns jsonb
language sql stable as $$
  select case
    when contact_id is not null then (
      select jsonb_build_object('id', c.id, 'name', coalesce(c.name, case when c.kind = 'guest' then 'Guest' else '' end),
               'email', c.email, 'type', 'contact', 'identifier', c.identifier,
               'custom_attributes', c.custom_attributes, 'thumbnail', '')
      from public.support_contacts c where c.id = contact_id)
    when agent_id is not null then (
      select public.support_agent_json(agent_id) || jsonb_build_object('type', 'user', 'identifier', null,
               'custom_attributes', '{}'::jsonb))
    else null end
$$;

-- A line as both APIs show it (message_type 0/1/2, created_at unix seconds). Attachments carry no
-- address here: the function signs data_url (one hour) when it answers.
create or replace function public.support_message_json(m public.support_messages) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', m.id, 'content', m.content, 'inbox_id', 1, 'conversation_id', m.conversation_id,
    'message_type', m.message_type, 'content_type', m.content_type, 'content_attributes', m.content_attributes,
    'status', 'sent', 'private', false, 'created_at', public.support_epoch(m.created_at),
    'sender', public.support_sender_json(m.sender_contact_id, m.sender_agent_id),
    'attachments', coalesce((
      select jsonb_agg(jsonb_build_object('id', a.id, 'message_id', a.message_id, 'file_type', a.file_type,
               'extension', a.extension, 'data_url', null, 'thumb_url', null, 'file_size', a.file_size)
             || case when a.duration is null then '{}'::jsonb else jsonb_build_object('duration', a.duration) end
             order by a.id)
      from public.support_attachments a where a.message_id = m.id), '[]'::jsonb))
  || case when m.echo_id is null then '{}'::jsonb else jsonb_build_object('echo_id', m.echo_id) end
$$;

-- The application conversation; with_messages false gives the list item (messages []), which still
-- carries last_non_activity_message for a preview.
create or replace function public.support_conversation_json(v public.support_conversations, with_messages boolean)
returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', v.id, 'inbox_id', 1, 'account_id', 1, 'status', v.status, 'muted', false, 'can_reply', true,
    'channel', 'Channel::WebWidget', 'priority', null, 'snoozed_until', null,
    'timestamp', public.support_epoch(v.last_activity_at), 'last_activity_at', public.support_epoch(v.last_activity_at),
    'created_at', public.support_epoch(v.created_at), 'updated_at', public.support_epoch(v.updated_at),
    'unread_count', (select count(*) from public.support_messages m
                     where m.conversation_id = v.id and m.message_type = 0
                       and (v.agent_last_seen_at is null or m.created_at > v.agent_last_seen_at)),
    'first_reply_created_at', public.support_epoch(v.first_reply_created_at),
    'waiting_since', public.support_epoch(v.waiting_since),
    'agent_last_seen_at', public.support_epoch(v.agent_last_seen_at),
    'assignee_last_seen_at', public.support_epoch(v.agent_last_seen_at),
    'contact_last_seen_at', public.support_epoch(v.contact_last_seen_at),
    'additional_attributes', jsonb_build_object('path', v.path, 'source', v.source, 'prompt_id', v.prompt_id,
      'resolved_at', case when v.resolved_at is null then null else public.support_epoch(v.resolved_at) end)
      || case when v.booking_id is null then '{}'::jsonb else jsonb_build_object('booking_id', v.booking_id) end,
    'custom_attributes', v.custom_attributes,
    'labels', to_jsonb(v.labels),
    'messages', case when with_messages then coalesce((
        select jsonb_agg(public.support_message_json(m) order by m.created_at, m.id)
        from public.support_messages m where m.conversation_id = v.id), '[]'::jsonb)
      else '[]'::jsonb end,
    'last_non_activity_message', (
      select public.support_message_json(m) from public.support_messages m
      where m.conversation_id = v.id and m.message_type <> 2 order by m.created_at desc, m.id desc limit 1),
    'meta', jsonb_build_object(
      'sender', (select public.support_contact_json(c) from public.support_contacts c where c.id = v.contact_id),
      'assignee', public.support_agent_json(v.assignee_id),
      'channel', 'Channel::WebWidget', 'hmac_verified', false))
$$;

-- ---- bookkeeping a line brings -------------------------------------------------------------------

-- Written here so every writer keeps it alike: the conversation's last activity; a contact line opens a
-- resolved thread again, starts the wait and counts as the contact's activity; an agent's line ends the
-- wait, is the first reply once, and marks the thread read by the agent.
create or replace function public.support_message_bookkeeping() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if new.message_type = 0 then
    update public.support_conversations
       set last_activity_at = new.created_at, updated_at = now(),
           waiting_since = coalesce(waiting_since, new.created_at),
           status = case when status = 'resolved' then 'open' else status end,
           resolved_at = case when status = 'resolved' then null else resolved_at end
     where id = new.conversation_id;
    update public.support_contacts set last_seen_at = greatest(last_seen_at, new.created_at)
     where id = new.sender_contact_id;
  elsif new.message_type = 1 then
    update public.support_conversations
       set last_activity_at = new.created_at, updated_at = now(), waiting_since = null,
           first_reply_created_at = coalesce(first_reply_created_at, new.created_at),
           agent_last_seen_at = case when new.sender_agent_id is null then agent_last_seen_at
                                     else greatest(coalesce(agent_last_seen_at, new.created_at), new.created_at) end
     where id = new.conversation_id;
  else
    update public.support_conversations set last_activity_at = new.created_at where id = new.conversation_id;
  end if;
  return null;
end
$$;
-- (the message_created payload, made at the end of the transaction, shows the conversation as the line
-- left it)
create trigger support_messages_bookkeeping after insert on public.support_messages
  for each row execute function public.support_message_bookkeeping();

-- ---- webhooks ---------------------------------------------------------------------------------------

create or replace function public.support_wants(event text) returns boolean
language sql stable as $$
  select exists (select 1 from public.support_webhooks w where w.subscriptions @> array[event])
$$;

-- One outbox row per subscription that wants the event. The signature is added at send time by the
-- function's adapter (the secret never goes into the outbox).
create or replace function public.support_enqueue(event text, payload jsonb) returns void
language sql as $$
  insert into public.webhook_outbox (api, subscription_id, event, url, headers, body)
  select 'support', w.id::text, event, w.url, '{}'::jsonb, (jsonb_build_object('event', event) || payload)::text
  from public.support_webhooks w
  where w.subscriptions @> array[event]
  order by w.id
$$;

-- The live channel's notification: { event, conversation_id, pubsub_token, message_id?, message? (a new
-- line's JSON when it fits), status?, sender? }, event one of message.created, message.updated, conversation.status_changed,
-- conversation.typing_on, conversation.typing_off (ActionCable's event names in Chatwoot).
create or replace function public.support_live(event text, conversation bigint, extra jsonb default '{}'::jsonb)
returns void
language sql as $$
  select pg_notify('support_live', (jsonb_build_object('event', event, 'conversation_id', v.id,
    'pubsub_token', v.pubsub_token) || extra)::text)
  from public.support_conversations v where v.id = conversation
$$;

-- Somebody is typing in a conversation (the contact through the client API, an agent through the
-- application API): only the live channel hears it.
create or replace function public.support_signal_typing(conversation bigint, typing boolean, by_type text, by_id bigint)
returns void
language sql as $$
  select public.support_live(case when typing then 'conversation.typing_on' else 'conversation.typing_off' end,
    conversation, jsonb_build_object('sender', jsonb_build_object('type', by_type, 'id', by_id)))
$$;

create or replace function public.support_message_events() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  v public.support_conversations;
  line jsonb;
begin
  if tg_op = 'UPDATE' then
    if old is not distinct from new then
      return null;
    end if;
    perform public.support_live('message.updated', new.conversation_id, jsonb_build_object('message_id', new.id));
    return null; -- message_updated may be subscribed to but is never sent
  end if;
  -- the line itself rides along when it fits a notification (NOTIFY carries under 8000 bytes), so the live
  -- channel pushes it without reading it back
  line := public.support_message_json(new);
  perform public.support_live('message.created', new.conversation_id, jsonb_build_object('message_id', new.id)
    || case when octet_length(line::text) < 7000 then jsonb_build_object('message', line) else '{}'::jsonb end);
  if public.support_wants('message_created') then
    select * into v from public.support_conversations where id = new.conversation_id;
    perform public.support_enqueue('message_created', line || jsonb_build_object(
      'message_type', case new.message_type when 0 then 'incoming' when 1 then 'outgoing' else 'activity' end,
      'created_at', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'conversation', public.support_conversation_json(v, false) - 'messages',
      'inbox', public.support_inbox_json(),
      'account', public.support_account_json()));
  end if;
  return null;
end
$$;
-- A new line's event waits for the end of its transaction, so the line's attachments (written after it in
-- the same transaction) are in its payload; a change is reported at once.
create constraint trigger support_messages_created after insert on public.support_messages
  deferrable initially deferred
  for each row execute function public.support_message_events();
create trigger support_messages_changed after update on public.support_messages
  for each row execute function public.support_message_events();

create or replace function public.support_conversation_events() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  body jsonb;
begin
  if tg_op = 'INSERT' then
    if public.support_wants('conversation_created') then
      perform public.support_enqueue('conversation_created', public.support_conversation_json(new, true)
        || jsonb_build_object('inbox', public.support_inbox_json(), 'account', public.support_account_json()));
    end if;
    return null;
  end if;
  if new.status is distinct from old.status then
    perform public.support_live('conversation.status_changed', new.id, jsonb_build_object('status', new.status));
    if public.support_wants('conversation_status_changed') then
      perform public.support_enqueue('conversation_status_changed', public.support_conversation_json(new, true)
        || jsonb_build_object('inbox', public.support_inbox_json(), 'account', public.support_account_json()));
    end if;
  end if;
  if (new.assignee_id, new.custom_attributes) is distinct from (old.assignee_id, old.custom_attributes)
      and public.support_wants('conversation_updated') then
    body := public.support_conversation_json(new, true) || jsonb_build_object(
      'inbox', public.support_inbox_json(), 'account', public.support_account_json(),
      'changed_attributes', (
        select coalesce(jsonb_agg(x), '[]'::jsonb) from (
          select jsonb_build_object('assignee_id', jsonb_build_object('previous_value', old.assignee_id,
                   'current_value', new.assignee_id)) as x
          where new.assignee_id is distinct from old.assignee_id
          union all
          select jsonb_build_object('custom_attributes', jsonb_build_object('previous_value', old.custom_attributes,
                   'current_value', new.custom_attributes))
          where new.custom_attributes is distinct from old.custom_attributes) changes));
    perform public.support_enqueue('conversation_updated', body);
  end if;
  return null;
end
$$;
create trigger support_conversations_events after insert or update on public.support_conversations
  for each row execute function public.support_conversation_events();

create or replace function public.support_contact_events() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if public.support_wants('contact_created') then
    perform public.support_enqueue('contact_created', public.support_contact_json(new)
      || jsonb_build_object('account', public.support_account_json()));
  end if;
  return null;
end
$$;
create trigger support_contacts_events after insert on public.support_contacts
  for each row execute function public.support_contact_events();

-- ---- webhooks declared in the site's configuration ---------------------------------------------------

-- `webhooks: [{ api: support, url, subscriptions, secret? }]` become source `file` subscriptions (one per
-- url) whenever the settings are written; declarations that disappear are removed. Without a secret one
-- is made (staff cannot read it; the deployment that wants to verify deliveries declares its own).
create or replace function public.support_webhooks_from_config() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
declare
  declared jsonb := coalesce(new.config -> 'webhooks', '[]'::jsonb);
begin
  if jsonb_typeof(declared) <> 'array' then
    declared := '[]'::jsonb;
  end if;
  with hooks as (
    select distinct on (h ->> 'url') h ->> 'url' as url, h ->> 'secret' as secret,
           array(select e from jsonb_array_elements_text(h -> 'subscriptions') e
                 where e = any(public.support_webhook_events())) as subscriptions
    from jsonb_array_elements(declared) as h
    where jsonb_typeof(h) = 'object' and h ->> 'api' = 'support' and (h ->> 'url') ~* '^https?://'
      and jsonb_typeof(h -> 'subscriptions') = 'array'
  ), gone as (
    delete from public.support_webhooks w
    where w.source = 'file'
      and not exists (select 1 from hooks where hooks.url = w.url and cardinality(hooks.subscriptions) > 0)
  ), changed as (
    update public.support_webhooks w
       set subscriptions = h.subscriptions, secret = coalesce(h.secret, w.secret), updated_at = now()
      from hooks h
     where w.source = 'file' and w.url = h.url and cardinality(h.subscriptions) > 0
       and (w.subscriptions, w.secret) is distinct from (h.subscriptions, coalesce(h.secret, w.secret))
  )
  insert into public.support_webhooks (url, subscriptions, secret, source)
  select h.url, h.subscriptions, coalesce(h.secret, md5(random()::text) || md5(random()::text)), 'file'
  from hooks h
  where cardinality(h.subscriptions) > 0
    and not exists (select 1 from public.support_webhooks w where w.source = 'file' and w.url = h.url);
  return new;
end
$$;
create trigger site_settings_support_webhooks after insert or update of config on public.site_settings
  for each row execute function public.support_webhooks_from_config();

-- the builders read the desk whole: the service role's (the function's) alone
revoke execute on function public.support_agent_json(bigint), public.support_contact_json(public.support_contacts),
  public.support_sender_json(bigint, bigint), public.support_message_json(public.support_messages),
  public.support_conversation_json(public.support_conversations, boolean), public.support_wants(text),
  public.support_enqueue(text, jsonb), public.support_live(text, bigint, jsonb),
  public.support_signal_typing(bigint, boolean, text, bigint), public.support_message_bookkeeping(),
  public.support_message_events(), public.support_conversation_events(), public.support_contact_events(),
  public.support_webhooks_from_config(), public.support_desk_name(), public.support_account_json(),
  public.support_inbox_json() from public, anon, authenticated;
grant execute on function public.support_agent_json(bigint), public.support_contact_json(public.support_contacts),
  public.support_sender_json(bigint, bigint), public.support_message_json(public.support_messages),
  public.support_conversation_json(public.support_conversations, boolean), public.support_wants(text),
  public.support_enqueue(text, jsonb), public.support_live(text, bigint, jsonb),
  public.support_signal_typing(bigint, boolean, text, bigint), public.support_desk_name(),
  public.support_account_json(), public.support_inbox_json() to service_role;
