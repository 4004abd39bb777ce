#!/usr/bin/env bash
# Rewrites the output under every "$ command" line of the ```sh blocks in Markdown files with what the
# command prints now, so documented output is never typed by hand. tests/cli/doc_examples.sh checks
# the result (label cli). Usage: scripts/update-doc-examples.sh BIN_DIR FILE.md...
# Commands run with BIN_DIR first on PATH, from a scratch directory; a command naming a .tv.gz file runs
# in $TESTFLOAT_DIR (Berkeley TestFloat vectors) and keeps its documented output when that is unset.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BIN_DIR FILE.md..." >&2; exit 2; }
bin_dir=$(cd "$1" && pwd); shift
export PATH="$bin_dir:$PATH"
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
for doc in "$@"; do
  doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc")
  out="$workdir/out.md"
  : > "$out"
  in_block=0 skipping=0
  while IFS= read -r line || [ -n "$line" ]; do
    if [ $in_block -eq 0 ]; then
      printf '%s\n' "$line" >> "$out"
      [[ "$line" == '```sh' ]] && in_block=1
      continue
    fi
    if [[ "$line" == '```' ]]; then printf '%s\n' "$line" >> "$out"; in_block=0; skipping=0; continue; fi
    if [[ "$line" == '$ '* ]]; then
      printf '%s\n' "$line" >> "$out"
      cmd=${line#\$ }
      run_dir=$workdir
      if [[ "$cmd" == *.tv.gz* ]]; then
        if [ -z "${TESTFLOAT_DIR:-}" ]; then skipping=0; continue; fi
        run_dir=$TESTFLOAT_DIR
      fi
      # $(...) drops trailing newlines, as doc_examples.sh's comparison does.
      output=$(cd "$run_dir" && bash -c "${cmd%%#*}" 2>&1) || true
      [ -n "$output" ] && printf '%s\n' "$output" >> "$out"
      skipping=1
    elif [ $skipping -eq 0 ]; then
      printf '%s\n' "$line" >> "$out"
    fi
  done < "$doc"
  if ! cmp -s "$out" "$doc"; then cp "$out" "$doc"; echo "updated $doc"; else echo "unchanged $doc"; fi
done
