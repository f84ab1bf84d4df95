-- A response's search text is stored as its words (runs of letters and digits, as the Forms API reads a
-- `query`): Postgres' parser keeps an e-mail address, a web address or a file name as one lexeme, so
-- `query=ann.lee@example.com` (or any part of it) found nothing. Rows written before keep their text as
-- it was typed: split it at the ASCII punctuation the parser joins words with. Running it again changes
-- nothing.
update public.form_responses
   set search_text = btrim(regexp_replace(search_text, '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+', ' ', 'g'))
 where search_text ~ '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]';
