#!/usr/bin/env bash
# Bad flag values are refused before anything runs, naming the flag, with a
# non-zero exit: numbers that do not fit (CLI11 clamped --seed
# 99999999999999999999 to INT64_MAX and wrapped --max-classes -1 to 2^64 - 1),
# garbage, and malformed JSON in --options & co. (a bare parser message that
# named no flag). No database is reached: --db points nowhere.
set -uo pipefail
: "${DPTRAIN_CLI:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }

# refused EXPECTED_STDERR_LINE ARGS...: exit code non-zero, first line of stderr as expected.
refused() {
  local expected=$1; shift
  local err rc
  err=$("$DPTRAIN_CLI" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || fail "exit code $rc, not 2 (a usage error), for: $*"
  [ "$(head -1 <<<"$err")" = "$expected" ] || fail "for: $*
expected: $expected
got:      $err"
}

nowhere=(--db "host=/nonexistent dbname=none")
refused "--seed: 99999999999999999999 is out of range (an integer from -9223372036854775808 to 9223372036854775807)" \
  train --table t --seed 99999999999999999999 "${nowhere[@]}"
refused "--seed: -99999999999999999999 is out of range (an integer from -9223372036854775808 to 9223372036854775807)" \
  tune --table t --epsilon 1 --seed -99999999999999999999 "${nowhere[@]}"
refused "--seed: 12abc is not a decimal integer" train --table t --seed 12abc "${nowhere[@]}"
refused "--batch-size: 1e3 is not a decimal integer" train --table t --batch-size 1e3 "${nowhere[@]}"
refused "--max-classes: -1 is not a non-negative decimal integer" load /nonexistent.csv --table t --max-classes -1 "${nowhere[@]}"
refused "--projection-seed: 18446744073709551616 is out of range (an integer from 0 to 18446744073709551615)" \
  load /nonexistent.csv --table t --projection-seed 18446744073709551616 "${nowhere[@]}"
refused "--steps: 99999999999999999999 is out of range (an integer from -9223372036854775808 to 9223372036854775807)" \
  privacy rdp --q 0.01 --sigma 4 --steps 99999999999999999999 --delta 1e-5
refused "--delta: 1e-400 is too close to 0 (it would read as 0)" privacy gaussian --epsilon 1 --delta 1e-400
refused "--epsilon: 1e999 is out of range (a magnitude of at most about 1.8e308)" train --table t --epsilon 1e999 "${nowhere[@]}"
refused "--epsilon: nan is not a finite number" train --table t --epsilon nan "${nowhere[@]}"
refused "--features: x is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)" predict --model m --features 0.5,x "${nowhere[@]}"
# Only decimal numbers: strtod read a C99 hexadecimal float (--epsilon 0x10 was 16) and skipped leading blanks.
refused "--epsilon: 0x10 is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)" train --table t --epsilon 0x10 "${nowhere[@]}"
refused "--epsilon:  1 is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)" train --table t --epsilon " 1" "${nowhere[@]}"
refused "--epsilon: 1,5 is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)" train --table t --epsilon 1,5 "${nowhere[@]}"
refused "--epsilon: inf is not a finite number" train --table t --epsilon inf "${nowhere[@]}"
refused "--delta: 0x1p-20 is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)" privacy gaussian --epsilon 1 --delta 0x1p-20

refused "--options: not valid JSON: parse error at line 1, column 2: syntax error while parsing object key - invalid literal; last read: '{a'; expected string literal" \
  train --table t --options '{accountant: basic}' "${nowhere[@]}"
refused "--options: must be a JSON object in braces, e.g. '{}', not [1]" train --table t --options '[1]' "${nowhere[@]}"
# a number beyond double range is malformed JSON too (it escaped the check as
# "[json.exception.out_of_range.406] ...", exit status 1, naming no flag)
refused "--options: not valid JSON: number overflow parsing '1e400'" \
  train --table t --options '{"clip_norm": 1e400}' "${nowhere[@]}"
refused "--grid: not valid JSON: number overflow parsing '1e400'" \
  tune --table t --epsilon 1 --method liu_talwar --grid '{"lambda": [1e400]}' "${nowhere[@]}"
"$DPTRAIN_CLI" train --table t --bounds '{"age": [0, 1e400]}' --columns age "${nowhere[@]}" 2>/dev/null
[ $? -eq 2 ] || fail "--bounds with 1e400: exit status not 2 (a usage error)"
refused "--bounds: not valid JSON: parse error at line 1, column 9: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal" \
  train --table t --columns age --bounds '{"age": }' "${nowhere[@]}"
refused "--grid: must be a JSON object in braces, e.g. '{}', not \"x\"" \
  tune --table t --epsilon 1 --method liu_talwar --grid '"x"' "${nowhere[@]}"

# Decimal forms are read: 1e-5, .5, 0.5.
out=$("$DPTRAIN_CLI" privacy gaussian --epsilon .5 --delta 1e-5 2>&1) || fail "--epsilon .5 --delta 1e-5 refused: $out"
[ "$out" = "$("$DPTRAIN_CLI" privacy gaussian --epsilon 0.5 --delta 0.00001 2>&1)" ] || fail ".5 and 0.5 differ: $out"
# A good value goes on (here to the connection, which fails: not a flag error).
err=$("$DPTRAIN_CLI" train --table t --seed 007 --options '{}' "${nowhere[@]}" 2>&1 >/dev/null)
grep -q -- "--seed\|--options" <<<"$err" && fail "a valid --seed or --options was refused: $err"
echo "cli_flag_values: ok"
