-- Helper of bench/compare.sh (loaded by it into its throwaway database after
-- bench/bolton_accuracy.sql). Unlike acc_grid, the configuration is data: the
-- algorithm-specific arguments of dp_train (or dp_tune) arrive as the text of
-- named arguments ("lambda => 0.001, epochs => 5"), so an algorithm whose
-- arguments differ from bolt-on's (AMP's options, P-FW's L1 radius, DP-SGD's
-- lots) needs a line in bench/compare/algorithms.txt and no new SQL. The text
-- comes from that file of this repository, never from a user.
--
-- One row per (epsilon, run): test accuracy, the majority-class rate of the
-- test table, the seconds of the training call and, for dp_tune, the chosen
-- hyperparameters (cmp_chosen). Seeds are the run numbers 1..runs (common random numbers
-- across configurations, as acc_grid). epsilon NULL = a non-private
-- algorithm (no epsilon or delta passed). Models are deleted after evaluation.
-- What dp_tune chose, as text: the grid point of a liu_talwar search
-- ("f 0.01, f1 0.9"), or lambda, epochs and batch size of a holdout search.
CREATE FUNCTION cmp_chosen(t dptrain.tuned_model) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN t.details->'tuning'->'chosen' ? 'point'
              THEN (SELECT string_agg(p.key || ' ' || p.value, ', ')
                    FROM jsonb_each_text(t.details->'tuning'->'chosen'->'point') p)
              ELSE format('lambda %s, epochs %s, batch %s', t.lambda, t.epochs, t.batch_size) END
$$;

CREATE FUNCTION cmp_runs(p_train regclass, p_test regclass, p_function text, p_algorithm text, p_loss text,
                         p_epsilons float8[], p_delta float8, p_args text, p_runs int, p_classes text[])
RETURNS TABLE (epsilon float8, delta float8, run int, accuracy float8, majority_rate float8, seconds float8,
               chosen text)
LANGUAGE plpgsql AS $$
DECLARE
  mid bigint; e float8; i int; t0 timestamptz; call text; privacy text; extra text; picked text;
BEGIN
  IF p_function NOT IN ('dp_train', 'dp_tune') THEN
    RAISE EXCEPTION 'cmp_runs: unknown function %', p_function;
  END IF;
  extra := CASE WHEN coalesce(p_args, '') = '' THEN '' ELSE ', ' || p_args END;
  FOREACH e IN ARRAY p_epsilons LOOP
    privacy := CASE WHEN e IS NULL THEN '' ELSE format(', epsilon => %s, delta => %s', e,
                    coalesce(p_delta::text, 'NULL')) END;
    FOR i IN 1..p_runs LOOP
      call := format('SELECT t.model_id, %s FROM %I(%L, ''y'', ''x'', algorithm => %L, loss => %L, seed => %s, '
                     'classes => %L::text[]%s%s) t',
                     CASE WHEN p_function = 'dp_tune' THEN 'cmp_chosen(t)' ELSE 'NULL::text' END,
                     p_function, p_train, p_algorithm, p_loss, i, p_classes, privacy, extra);
      t0 := clock_timestamp();
      EXECUTE call INTO mid, picked;
      seconds := extract(epoch FROM clock_timestamp() - t0);
      epsilon := e; delta := CASE WHEN e IS NULL THEN NULL ELSE p_delta END; run := i; chosen := picked;
      SELECT ev.accuracy, ev.majority_rate INTO accuracy, majority_rate
      FROM dp_evaluate(mid, p_test, 'y', 'x') ev;
      DELETE FROM dptrain.models WHERE id = mid;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;
