#!/usr/bin/env bash
# Every integer option of every floatlab subcommand (counts, sizes, seeds, steps): a negative, a
# non-decimal or an out-of-range value is refused with exit 2 and a message that quotes what was
# typed and says what is accepted. A negative number must never be read as a huge unsigned one:
# strtoull, which CLI11 converts with, negates in the unsigned type (C11 7.22.1.4), so "-1" became
# 2^64 - 1 = 18446744073709551615, and base 0 read "010" as octal 8.
#
#   floatlab_integer_options.sh FLOATLAB
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
export NO_COLOR=1
error_stdout_empty=1

u32_max=$(( (1 << 32) - 1 ))
u64_max=18446744073709551615   # 2^64 - 1, beyond bash arithmetic; the accepted end for 64-bit seeds
two40=$(( 1 << 40 ))

# refuses OPTION MIN MAX ARGS...: ARGS with OPTION -1, -7, 1e3, 0x10, +5, MAX + 1 (when MAX is not
# 2^64 - 1) and MIN - 1 (when MIN > 0) each fail, naming OPTION, the text and the range.
refuses() {
  local opt=$1 min=$2 max=$3
  shift 3
  local accepted="(accepted: a whole number from $min to $max)"
  expect_error "$* $opt -1" "$opt: '-1' is negative $accepted" -- "$@" "$opt" -1
  if [[ $opt == --* ]]; then
    expect_error "$* $opt=-7" "$opt: '-7' is negative $accepted" -- "$@" "$opt=-7"
  fi
  expect_error "$* $opt 1e3" "$opt: '1e3' is not a whole number $accepted" -- "$@" "$opt" 1e3
  expect_error "$* $opt 0x10" "$opt: '0x10' is not a whole number" -- "$@" "$opt" 0x10
  expect_error "$* $opt +5" "$opt: '+5' is not a whole number" -- "$@" "$opt" +5
  expect_error "$* $opt 2^64" "$opt: '18446744073709551616' is too large $accepted" -- "$@" "$opt" 18446744073709551616
  if [[ $max != "$u64_max" ]]; then
    expect_error "$* $opt max+1" "$opt: '$((max + 1))' is too large $accepted" -- "$@" "$opt" $((max + 1))
  fi
  if (( min > 0 )); then
    expect_error "$* $opt min-1" "$opt: '$((min - 1))' is too small $accepted" -- "$@" "$opt" $((min - 1))
  fi
  # nothing ever reports the wrapped value of -1 (where it is not the accepted maximum)
  if [[ $max != "$u64_max" ]]; then
    checks=$((checks + 1))
    run "$@" "$opt" -1
    [[ $err != *18446744073709551615* ]] || fail "$* $opt -1 reports 2^64 - 1: $err"
  fi
}

# ---- sizes and counts ---------------------------------------------------------------------------
refuses --m 1 $(( 1 << 30 )) gemm
refuses --n 1 $(( 1 << 30 )) gemm
refuses --k 1 $(( 1 << 30 )) gemm
refuses --n 1 $(( 1 << 28 )) sum
refuses --n 1 $(( 1 << 28 )) dot
refuses -n 1 $(( 1 << 28 )) sum   # the short name (the message says --n, which holds "-n")
refuses --trace-every 0 "$two40" sum --n 8 --trace
refuses --trace-head 0 "$two40" sum --n 8 --trace
refuses --trace-tail 0 "$two40" dot --n 8 --trace
refuses --count 1 $(( 1 << 20 )) table fp16 --from 1
refuses --show 0 "$u64_max" check f16_add
refuses --steps 1 1000000000 stagnation
refuses --steps 1 1000000 scaler
refuses --growth-interval 1 $(( 1 << 31 )) scaler

# ---- seeds ----------------------------------------------------------------------------------------
for sub in "show 1 -f fp16" "calc 1 -f fp16" "eval f16_add" "check f16_add" "stagnation"; do
  # shellcheck disable=SC2086
  refuses --seed 0 "$u32_max" $sub -r stochastic
done
# grads rounds deterministically; its seed drives the recipes' stochastic rounding (NVFP4 gradients)
refuses --seed 0 "$u32_max" grads x.npy --recipe nvfp4
refuses --seed 0 "$u32_max" scaler --overflow-prob 0.5
refuses --seed 0 "$u64_max" sum
refuses --seed 0 "$u64_max" dot
refuses --seed 0 "$u64_max" gemm --m 2 --n 2 --k 2

# a negative step in --overflow-at's list is named too
expect_error "--overflow-at -3" "--overflow-at step: '-3' is negative (accepted: a whole number from 1 to 40)" -- \
  scaler --steps 40 --overflow-at 2,-3

# ---- accepted values are read in decimal, to the end of their range --------------------------------
error_stdout_empty=0
# "010" is ten values (base 0 read it as octal: 8)
expect_json "table --count 010 is ten" 'len(j["rows"]) == 10 and j["rows"][0]["bits"] == "0x3C00"' -- \
  table fp16 --from 1 --count 010 --json
expect_json "table --count 1" 'len(j["rows"]) == 1' -- table fp16 --from 1 --count 1 --json
# the ends of the seed ranges are accepted: 2^32 - 1 for std::mt19937, 2^64 - 1 for std::mt19937_64
expect_out "calc --seed 2^32-1" "= 1 in fp16" -- calc 1 -f fp16 -r stochastic --seed "$u32_max"
expect_out "sum --seed 2^64-1" "--seed $u64_max" -- sum --n 4 --seed "$u64_max"
expect_out "sum --seed 0" "--seed 0" -- sum --n 4 --seed 0
expect_out "sum --seed 007 is 7" "--seed 7" -- sum --n 4 --seed 007
expect_out "gemm --m 1 --n 1 --k 1" "exact" -- gemm --m 1 --n 1 --k 1
printf '3C00 3C00 4000 00\n' >"$tmp/case.txt"
expect_out "check --show 0" "1 passed, 0 failed" -- check f16_add --show 0 --input "$tmp/case.txt"

cli_finish floatlab_integer_options
