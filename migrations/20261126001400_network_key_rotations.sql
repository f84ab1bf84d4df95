-- A member's new signing key while it is being written to the did:plc directory. Rotating is two steps
-- that cannot share one transaction (the directory is another service): the new key is kept here first,
-- sealed like the current one, then the directory is sent the operation naming it, then the account takes
-- it. A rotation cut off between the last two steps is finished by the next attempt, which finds the
-- directory already naming the key kept here; without this row the key the directory names would be lost.
create table public.network_key_rotations (
  person_id uuid primary key references public.network_accounts (person_id) on delete cascade,
  -- AES-GCM ciphertext of the new K-256 private key under the deployment secret, as network_accounts
  signing_key text not null,
  signing_did_key text not null,
  started_at timestamptz not null default now()
);
alter table public.network_key_rotations enable row level security;
revoke all on public.network_key_rotations from anon, authenticated;
grant all on public.network_key_rotations to service_role;
