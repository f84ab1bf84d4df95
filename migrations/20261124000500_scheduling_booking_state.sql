-- A booking's own bookkeeping moves out of its metadata: metadata is what the caller gave (plus provider
-- and event), shown on the wire and in webhook payloads; when the host confirmed it and where a move took
-- it from are the service's own state. (The payment session already has its column, payment_session_id.)
alter table public.scheduling_bookings
  add column if not exists confirmed_at timestamptz,
  add column if not exists previous_start_at timestamptz;

-- Rows written before this migration carried that state in metadata (as toISOString wrote it): move it
-- to the columns. A caller's own member of the same name in another shape stays where it is.
update public.scheduling_bookings
   set confirmed_at = (metadata->>'confirmedAt')::timestamptz,
       metadata = metadata - 'confirmedAt'
 where metadata->>'provider' = 'sitewire'
   and metadata->>'confirmedAt' ~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$';

update public.scheduling_bookings
   set previous_start_at = (metadata->>'previousStart')::timestamptz,
       metadata = metadata - 'previousStart'
 where metadata->>'provider' = 'sitewire'
   and metadata->>'previousStart' ~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$';

update public.scheduling_bookings
   set metadata = metadata - 'paymentSession'
 where metadata->>'paymentSession' = payment_session_id;
