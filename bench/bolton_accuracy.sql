-- Helpers of bench/bolton_accuracy.sh and bench/whitebox_accuracy.sh (created
-- by bench/lib/accuracy.sh in the benchmark's throwaway
-- database). Each training run is its own statement inside a PL/pgSQL loop, so
-- dp_evaluate sees the model dp_train just stored; models are deleted after
-- evaluation. Seeds are the run numbers 1..runs for every configuration
-- (common random numbers: run r of every configuration sees the same shuffle
-- and the same standardized noise draw), so differences between
-- configurations are not blurred by independent noise; the runs of one
-- configuration are independent.

-- One row per (epsilon, lambda, learning rate, radius, epochs, run): test
-- accuracy of `p_algorithm` (bolton by default; scs13, bst14). epsilons NULL
-- element = algorithm none (non-private reference); rates NULL element = the
-- algorithm's default step; radii NULL element = the algorithm's default
-- radius (none: the same projection onto 1/lambda as bolton when lambda > 0).
-- Every model without an intercept, as in the Bolt-on paper and as these benches were measured
-- before the intercept became dptrain's default (docs/intercept.md): with it the rows' bound is
-- sqrt(2) R, and the grids' step 1 is above 2/beta (Lemma 1) by the rounding of sqrt(2)^2.
CREATE FUNCTION acc_grid(p_train regclass, p_test regclass, p_scenario text, p_epsilons float8[], p_delta float8,
                         p_lambdas float8[], p_rates float8[], p_epochs int[], p_runs int, p_classes text[] DEFAULT NULL,
                         p_algorithm text DEFAULT 'bolton', p_radii float8[] DEFAULT '{NULL}',
                         p_averaging boolean DEFAULT false, p_options jsonb DEFAULT '{}')
RETURNS TABLE (scenario text, epsilon float8, delta float8, lambda float8, learning_rate float8, epochs int,
               run int, accuracy float8, seconds float8, algorithm text, radius float8)
LANGUAGE plpgsql AS $$
DECLARE
  mid bigint; e float8; l float8; r float8; rad float8; k int; i int; t0 timestamptz;
BEGIN
  FOREACH e IN ARRAY p_epsilons LOOP
    FOREACH l IN ARRAY p_lambdas LOOP
      FOREACH r IN ARRAY p_rates LOOP
        FOREACH rad IN ARRAY p_radii LOOP
          FOREACH k IN ARRAY p_epochs LOOP
            FOR i IN 1..p_runs LOOP
              t0 := clock_timestamp();
              SELECT t.model_id INTO mid
              FROM dp_train(p_train, 'y', 'x', algorithm => CASE WHEN e IS NULL THEN 'none' ELSE p_algorithm END,
                            epsilon => e, delta => CASE WHEN e IS NULL THEN NULL ELSE p_delta END,
                            lambda => l, learning_rate => r, epochs => k, batch_size => 50, seed => i,
                            radius => COALESCE(rad, CASE WHEN e IS NULL AND l > 0 THEN 1 / l END),
                            classes => p_classes, averaging => p_averaging,
                            options => p_options, intercept => false) t;
              scenario := p_scenario; epsilon := e; delta := CASE WHEN e IS NULL THEN NULL ELSE p_delta END;
              lambda := l; learning_rate := r; epochs := k; run := i; radius := rad;
              algorithm := CASE WHEN e IS NULL THEN 'none' ELSE p_algorithm END;
              seconds := extract(epoch FROM clock_timestamp() - t0);
              SELECT ev.accuracy INTO accuracy FROM dp_evaluate(mid::text, p_test, 'y', 'x') ev;
              DELETE FROM dptrain.models WHERE id = mid;
              RETURN NEXT;
            END LOOP;
          END LOOP;
        END LOOP;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;

-- One row per (epsilon, run): the privately tuned model (dp_tune over the
-- given grid) of `p_algorithm` and its test accuracy.
CREATE FUNCTION acc_tune(p_train regclass, p_test regclass, p_scenario text, p_epsilons float8[], p_delta float8,
                         p_lambdas float8[], p_epochs int[], p_runs int, p_rate float8 DEFAULT NULL,
                         p_classes text[] DEFAULT NULL, p_algorithm text DEFAULT 'bolton', p_radius float8 DEFAULT NULL)
RETURNS TABLE (scenario text, epsilon float8, delta float8, learning_rate float8, run int, chosen_lambda float8,
               chosen_epochs int, accuracy float8, seconds float8, algorithm text, radius float8)
LANGUAGE plpgsql AS $$
DECLARE
  mid bigint; e float8; i int; t0 timestamptz;
BEGIN
  FOREACH e IN ARRAY p_epsilons LOOP
    FOR i IN 1..p_runs LOOP
      t0 := clock_timestamp();
      SELECT t.model_id, t.lambda, t.epochs INTO mid, chosen_lambda, chosen_epochs
      FROM dp_tune(p_train, 'y', 'x', algorithm => p_algorithm, epsilon => e, delta => p_delta, lambdas => p_lambdas,
                   epochs => p_epochs, batch_sizes => '{50}', learning_rate => p_rate, seed => i,
                   classes => p_classes, radius => p_radius, intercept => false) t;
      scenario := p_scenario; epsilon := e; delta := p_delta; learning_rate := p_rate; run := i;
      algorithm := p_algorithm; radius := p_radius;
      seconds := extract(epoch FROM clock_timestamp() - t0);
      SELECT ev.accuracy INTO accuracy FROM dp_evaluate(mid::text, p_test, 'y', 'x') ev;
      DELETE FROM dptrain.models WHERE id = mid;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;
