-- The bookings list carries its exact total (Cal.com's pagination.totalItems), counted for every page.
-- Upcoming, past and unconfirmed bookings are the live ones (accepted or pending) on one side of now:
-- indexed by their end, only the live rows, the count is an index-only scan of the matching range
-- rather than a pass over the whole table (100,000 bookings: about 5 ms against 60 to 110 ms).
create index scheduling_bookings_live_end on public.scheduling_bookings (end_at)
  where status in ('accepted', 'pending');
