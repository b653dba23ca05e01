-- pg_temp.try(sql): runs `sql` and returns the SQLSTATE, message, detail and
-- hint of its error ('00000' / 'no error' if none), so a test can show every
-- part of an error report. Included by the tests that list error paths.
CREATE FUNCTION pg_temp.try(sql text, OUT code text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  code := '00000';
  message := 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END
$$;
