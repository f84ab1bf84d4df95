-- The firehose's backfill window (NETWORK_FIREHOSE_BACKFILL_HOURS): a subscriber whose cursor is older
-- than the window is replayed from the first event inside it, found by time in one index probe.
create index network_seq_created_at on public.network_seq (created_at);
