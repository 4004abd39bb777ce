#!/usr/bin/env bash
# Runs every "$ command" line of the ```sh blocks in a Markdown file and compares what it prints
# with the lines that follow it in the file, so the documented output is the program's real output.
# Usage: doc_examples.sh FLOATLAB_DIR MARKDOWN [TESTFLOAT_DIR]
# Commands run with FLOATLAB_DIR first on PATH, in TESTFLOAT_DIR when given (for *.tv.gz files);
# a command naming a .tv.gz file is skipped (and reported) when that directory is absent.
set -uo pipefail
bin_dir=$1 doc=$2 tf_dir=${3:-}
export PATH="$bin_dir:$PATH"
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
[ -n "$tf_dir" ] && [ -d "$tf_dir" ] && cd "$tf_dir" || cd "$workdir"

pass=0 fail=0 skipped=0
in_block=0 cmd="" expected=""
run_case() {
  [ -z "$cmd" ] && return
  if [[ "$cmd" == *.tv.gz* ]] && { [ -z "$tf_dir" ] || [ ! -d "$tf_dir" ]; }; then
    skipped=$((skipped + 1)); echo "SKIP (no TestFloat dir): $cmd"; cmd=""; expected=""; return
  fi
  actual=$(bash -c "${cmd%%#*}" 2>&1)
  if [ "$actual" == "$expected" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAIL: %s\n--- documented\n%s\n--- actual\n%s\n' "$cmd" "$expected" "$actual"
  fi
  cmd="" expected=""
}
while IFS= read -r line || [ -n "$line" ]; do
  if [ $in_block -eq 0 ]; then
    [[ "$line" == '```sh' ]] && in_block=1
    continue
  fi
  if [[ "$line" == '```' ]]; then run_case; in_block=0; continue; fi
  if [[ "$line" == '$ '* ]]; then
    run_case
    cmd=${line#\$ }
  elif [ -n "$cmd" ]; then
    expected+="${expected:+$'\n'}$line"
  fi
done < "$doc"
echo "$pass passed, $fail failed${skipped:+, $skipped skipped}"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
