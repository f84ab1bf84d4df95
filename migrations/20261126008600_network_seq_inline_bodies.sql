-- An event's body is DAG-CBOR with CIDs, signatures and keys in it, which pglz hardly shrinks: a #commit
-- of a grown repository is 2-4 kB, past the 2 kB at which a row is compressed, so its insert tried pglz
-- over the whole body, and so did the update that numbers it at commit (migration network_seq_at_commit)
-- when the first try had saved too little to keep. Rows are compressed or moved out of line only past
-- the most a page holds: a body that fits stays inline as sent, a larger one (a big #commit, up to the
-- 2 MB a relay takes) is compressed and moved out of line as before.
alter table public.network_seq set (toast_tuple_target = 8160);
