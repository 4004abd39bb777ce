#!/usr/bin/env bash
# Berkeley TestFloat conformance: runs `floatlab check` over every *.tv.gz vector file in a folder
# and reports per-file and grand totals.
#
#   run_testfloat.sh FLOATLAB DIR
#
# A file's name says how to check it: OPERATION.MODE[.OPTION].tv.gz (see DIR/README.md):
#   MODE      near_even minMag min max near_maxMag odd   -> floatlab check OPERATION -r MODE
#   exact                                                -> --exact
#   tininessbefore                                       -> --tininess before
#   sampled256                                           -> nothing (a subset of the cases)
# Comparisons (f16_eq.tv.gz, ...) have no MODE. A name with any other part is an error, never
# skipped. Exit status: 0 every file passed, 1 a file failed or could not be checked,
# 77 (ctest SKIP_RETURN_CODE) when DIR is unset, absent or holds no *.tv.gz file.
set -u -o pipefail

readonly skip=77
if (( $# != 2 )); then
  echo "usage: $0 FLOATLAB DIR" >&2
  exit 2
fi
floatlab=$1
dir=$2

if [[ -z $dir || ! -d $dir ]]; then
  echo "SKIPPED: TestFloat folder '${dir}' does not exist (set LIBFLOAT_TESTFLOAT_DIR)"
  exit $skip
fi
shopt -s nullglob
files=("$dir"/*.tv.gz)
if (( ${#files[@]} == 0 )); then
  echo "SKIPPED: no *.tv.gz file in '${dir}'"
  exit $skip
fi

total_passed=0 total_failed=0 files_failed=0
for file in "${files[@]}"; do
  name=${file##*/}
  name=${name%.tv.gz}
  IFS=. read -r -a parts <<< "$name"
  op=${parts[0]}
  args=()
  bad_name=""
  for part in "${parts[@]:1}"; do
    case $part in
      near_even | minMag | min | max | near_maxMag | odd) args+=(-r "$part") ;;
      exact) args+=(--exact) ;;
      tininessbefore) args+=(--tininess before) ;;
      sampled256) ;;
      *) bad_name=$part ;;
    esac
  done
  command_line="gzip -dc $file | floatlab check $op ${args[*]}"
  if [[ -n $bad_name ]]; then
    echo "ERROR $name: unknown part '$bad_name' in the file name"
    files_failed=$((files_failed + 1))
    continue
  fi

  output=$(gzip -dc "$file" | "$floatlab" check "$op" "${args[@]}" --show 10 2>&1)
  rc=$?
  summary=${output##*$'\n'}
  if [[ $summary =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    if (( rc == 0 && failed == 0 && passed > 0 )); then
      echo "PASS $name: $summary"
      continue
    fi
  fi
  # A failure, an error of floatlab or gzip, or no vectors at all: show everything for a rerun.
  reason="exit status $rc"
  (( rc == 0 )) && reason="no cases in the file"
  echo "FAIL $name ($reason): $command_line"
  [[ -n $output ]] && sed 's/^/    /' <<< "$output"
  files_failed=$((files_failed + 1))
done

echo "FILES: ${#files[@]} checked, $files_failed failed"
echo "TOTAL: $total_passed passed, $total_failed failed"
echo "$total_passed passed, $total_failed failed"
(( files_failed == 0 && total_failed == 0 ))
