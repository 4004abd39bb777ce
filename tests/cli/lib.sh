# shellcheck shell=bash
# Shared harness of the floatlab CLI test scripts (tests/cli/floatlab_*.sh); sourced, not run:
#
#   source "$(dirname "$0")/lib.sh"
#   cli_init 1 "FLOATLAB" "$@"      # checks the argument count, sets floatlab, tmp, checks, failures
#   expect_out ... ; expect_error ... ; expect_json ...
#   cli_finish "floatlab_x"         # prints the summary; the script's exit status is 1 on any failure
#
# Settings a script may change after cli_init:
#   stdin_file            stdin of each run (default /dev/null)
#   error_stdout_empty=1  expect_error also requires an empty stdout
#   out_flat_match=1      expect_out also matches a phrase with runs of blanks and newlines as one space
#   json_args=(--json)    appended to every expect_json command line
#   json_helpers='...'    python run before each expect_json check (after `j` is bound)
#   run_with=run_input    expect_out and expect_error take the stdin text as the first argument after --

# cli_init NARGS USAGE ARGS...: exit 2 with a usage line unless there are NARGS arguments; floatlab=$1.
cli_init() {
  local nargs=$1 usage=$2
  shift 2
  if (( $# != nargs )); then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
  floatlab=$1
  failures=0 checks=0
  stdin_file=/dev/null error_stdout_empty=0 out_flat_match=0 json_helpers='' run_with=run
  json_args=()
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}

# run ARGS...: runs floatlab ARGS with stdin from $stdin_file; sets rc, out, err.
run() {
  "$floatlab" "$@" <"$stdin_file" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(<"$tmp/out")
  err=$(<"$tmp/err")
}

# run_input INPUT ARGS...: run with INPUT (printf %b escapes) on stdin.
run_input() {
  printf '%b' "$1" >"$tmp/in"
  shift
  local saved=$stdin_file
  stdin_file=$tmp/in
  run "$@"
  stdin_file=$saved
}

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# split_want SUBSTRING... -- ARGS...: sets the arrays want (before --) and args (after).
split_want() {
  want=()
  while (( $# )) && [[ $1 != -- ]]; do
    want+=("$1")
    shift
  done
  if (( !$# )); then
    echo "lib.sh: missing -- before the floatlab arguments" >&2
    exit 2
  fi
  shift
  args=("$@")
}

# missing_in TEXT: sets missing to the entries of want that TEXT does not hold (with out_flat_match,
# a phrase may also be wrapped across lines).
missing_in() {
  local text=$1 flat s
  [[ $out_flat_match == 1 ]] && flat=$(tr -s ' \n' '  ' <<<"$text")
  missing=()
  for s in "${want[@]}"; do
    [[ $text == *"$s"* ]] && continue
    [[ $out_flat_match == 1 && $flat == *"$s"* ]] && continue
    missing+=("$s")
  done
}

# expect_out NAME SUBSTRING... -- ARGS...: exit 0 and stdout holds each substring.
expect_out() {
  local name=$1
  shift
  split_want "$@"
  checks=$((checks + 1))
  "$run_with" "${args[@]}"
  missing_in "$out"
  if [[ $rc != 0 ]] || (( ${#missing[@]} )); then
    fail "$name: floatlab ${args[*]}"
    printf '      exit %s, want 0; missing: %s\n      stdout: %.2000s\n      stderr: %s\n' \
      "$rc" "${missing[*]}" "$out" "$err"
  fi
}

# expect_error NAME SUBSTRING... -- ARGS...: exit 2 and stderr holds each substring (with
# error_stdout_empty=1, stdout must also be empty).
expect_error() {
  local name=$1 save_flat=$out_flat_match
  shift
  split_want "$@"
  checks=$((checks + 1))
  "$run_with" "${args[@]}"
  out_flat_match=0
  missing_in "$err"
  out_flat_match=$save_flat
  if [[ $rc != 2 ]] || (( ${#missing[@]} )) || [[ $error_stdout_empty == 1 && -n $out ]]; then
    fail "$name: floatlab ${args[*]}"
    printf '      exit %s, want 2; missing: %s\n      stdout: %.500s\n      stderr: %s\n' \
      "$rc" "${missing[*]}" "$out" "$err"
  fi
}

# expect_json NAME PYTHON_CHECK -- ARGS...: floatlab ARGS "${json_args[@]}" exits 0, its stdout is
# one JSON document (bound to `j`, also as `d`), and PYTHON_CHECK is true: either one expression,
# or statements whose last one is the expression. $json_helpers runs first.
expect_json() {
  local name=$1 check=$2
  [[ ${3-} == -- ]] || { echo "lib.sh: expect_json $name: missing --" >&2; exit 2; }
  shift 3
  checks=$((checks + 1))
  run "$@" "${json_args[@]}"
  if [[ $rc != 0 ]]; then
    fail "$name: floatlab $* ${json_args[*]}: exit $rc: $err"
    return
  fi
  local verdict
  verdict=$(python3 - "$tmp/out" "$check" "$json_helpers" <<'PY' 2>&1
import ast, json, math, struct, sys
from fractions import Fraction
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"not JSON: {e}"); sys.exit(0)
scope = {"j": j, "d": j, "json": json, "math": math, "struct": struct, "Fraction": Fraction}
try:
    exec(sys.argv[3], scope)
    try:   # one expression, possibly over several lines
        code = compile("(" + sys.argv[2] + ")", "check", "eval")
    except SyntaxError:   # statements, then the expression
        tree = ast.parse(sys.argv[2])
        last = tree.body.pop()
        exec(compile(tree, "check", "exec"), scope)
        code = compile(ast.Expression(last.value), "check", "eval")
    ok = eval(code, scope)
except Exception as e:
    print(f"{type(e).__name__}: {e}"); sys.exit(0)
print("ok" if ok else "false")
PY
)
  if [[ $verdict != ok ]]; then
    fail "$name: floatlab $* ${json_args[*]}: $check -> $verdict"
    printf '      stdout: %.1500s\n' "$out"
  fi
}

# cli_finish LABEL: prints the counts; returns 1 if any check failed (use it as the last command).
cli_finish() {
  echo "$1: $((checks - failures)) passed, $failures failed ($checks checks)"
  (( failures == 0 ))
}
