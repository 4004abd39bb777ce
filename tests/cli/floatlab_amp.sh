#!/usr/bin/env bash
# `floatlab stagnation` and `floatlab scaler` run as a user would: text, --json, errors, exit codes.
#
#   floatlab_amp.sh FLOATLAB
#
# Expected numbers come from python3, not from the library: the weight loops are replayed with
# struct's IEEE half/single rounding (struct.pack 'e'/'f' round to nearest even) and PyTorch's
# bfloat16 bit formula; the GradScaler rule is re-stated in a few lines. Prints one line per
# failed expectation and exits 1 if there was any.
set -u

source "$(dirname "$0")/lib.sh"
cli_init 1 FLOATLAB "$@"
error_stdout_empty=1

# ---- independent expectations (python3) ------------------------------------------------------

read -r fp32_final fp32_lost bf16_update stall_final fp16_update <<<"$(python3 - <<'EOF'
import struct
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]   # one rounding, nearest even
def f16(x): return struct.unpack('<e', struct.pack('<e', x))[0]
def bf16(x):
    u = struct.unpack('<I', struct.pack('<f', f32(x)))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16                        # PyTorch c10::BFloat16
    return struct.unpack('<f', struct.pack('<I', u << 16))[0]
w, u, lost = f32(1.0), f32(1e-4), 0
for _ in range(10000):
    n = f32(w + u)          # the double sum of two floats is exact here; one rounding to float
    lost += n == w
    w = n
w16, u16 = 1.0, f16(1e-3)
for _ in range(10000):
    w16 = f16(w16 + u16)
print(repr(w), lost, repr(bf16(1e-4)), repr(w16), repr(f16(1e-4)))
EOF
)"

# ---- stagnation ------------------------------------------------------------------------------

# fp16 and bf16 stay at 1 (every update lost); the fp32 master weight reaches python's value.
expect_out "stagnation defaults" "fp16 weight, fp16 update" "bf16 weight, bf16 update" \
  "fp32 weight, fp32 update" "10000 of 10000, the first at step 1" "2^-11 = 0.00048828125" \
  "every update lost" "2048" -- stagnation
expect_json "stagnation --json: keys and values" "
[r['weight_format'] for r in d['results']] == ['fp16', 'bf16', 'fp32'] and d['command'] == 'stagnation' and
d['steps'] == 10000 and d['rounding'] == 'nearest_even' and
all(set(r) >= {'initial', 'update', 'final', 'exact_value', 'exact_value_is_exact', 'error', 'relative_error',
               'steps_lost', 'first_lost_step', 'half_ulp_initial', 'half_ulp_final', 'stagnation_ratio',
               'flags', 'reason'} for r in d['results']) and
float(d['results'][0]['final']['exact']) == 1.0 and d['results'][0]['steps_lost'] == 10000 and
d['results'][0]['first_lost_step'] == 1 and float(d['results'][0]['half_ulp_initial']) == 2.0**-11 and
float(d['results'][0]['update']['exact']) == $fp16_update and
float(d['results'][1]['final']['exact']) == 1.0 and d['results'][1]['steps_lost'] == 10000 and
float(d['results'][1]['update']['exact']) == $bf16_update and
float(d['results'][2]['final']['exact']) == $fp32_final and d['results'][2]['steps_lost'] == $fp32_lost and
d['results'][2]['first_lost_step'] is None and abs(float(d['results'][2]['final']['exact']) - 2.0) < 1e-3 and
float(d['results'][0]['stagnation_ratio']) == 2048
" -- stagnation --json
# fp16 + 1e-3 moves, then stalls (python's replay gives the value).
expect_json "stagnation stalls mid-run" "
d['results'][0]['first_lost_step'] > 1 and float(d['results'][0]['final']['exact']) == $stall_final" \
  -- stagnation -f fp16 --update 1e-3 --json
expect_out "stagnation stall text" "then stalled" -- stagnation -f fp16 --update 1e-3
# numbers: a hex float and a raw encoding (0x3C00 = fp16 1, 0x068E = fp16 1e-4) give the same run
expect_json "stagnation --bits" "float(d['results'][0]['final']['exact']) == 1.0 and d['results'][0]['steps_lost'] == 10" \
  -- stagnation -f fp16 --bits --weight 3C00 --update 068E --steps 10 --json
expect_json "stagnation hex float weight" "d['results'][0]['initial']['bits'] == '0x3C00'" \
  -- stagnation -f fp16 --weight 0x1p0 --steps 3 --json
expect_json "stagnation update format" "d['results'][0]['update_format'] == 'fp32' and d['results'][0]['weight_format'] == 'bf16'" \
  -- stagnation -f bf16 --update-format fp32 --steps 5 --json
expect_json "stagnation stochastic moves" "d['results'][0]['steps_lost'] < 10000 and float(d['results'][0]['final']['exact']) > 1.5" \
  -- stagnation -f fp16 -r stochastic --seed 3 --json
expect_out "stagnation --help has examples and schema" "Examples:" "\"steps_lost\"" "every update lost" -- stagnation --help

# errors: exit 2, the offending argument named, what is accepted listed
expect_error "unknown weight format" "-f/--formats" "unknown format 'fp17'" "known:" -- stagnation -f fp16,fp17
expect_error "unknown update format" "--update-format" "unknown format 'x'" "known:" -- stagnation --update-format x
expect_error "bad weight" "--weight '1.2.3' is not a number" "accepted:" -- stagnation --weight 1.2.3
expect_error "bad update" "--update 'abc' is not a number" -- stagnation --update abc
expect_error "steps zero" "--steps: '0' is too small (accepted: a whole number from 1 to 1000000000)" -- stagnation --steps 0
expect_error "steps negative" "--steps: '-5' is negative (accepted: a whole number from 1 to 1000000000)" -- stagnation --steps -5
expect_error "steps not a number" "--steps: 'ten' is not a whole number" -- stagnation --steps ten
expect_error "steps too large" "--steps: '99999999999' is too large" -- stagnation --steps 99999999999
expect_error "bad rounding" "unknown rounding 'sideways'" -- stagnation -r sideways
expect_error "bad --bits" "is not a raw fp16 encoding" -- stagnation -f fp16 --bits --weight 3G00

# ---- scaler ----------------------------------------------------------------------------------

# The rule re-stated: scale halves at an overflow (tracker reset), doubles after growth_interval clean steps.
read -r scaler_expect <<<"$(python3 - <<'EOF'
import struct
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
scale, tracker, out = f32(65536.0), 0, []
for k in range(1, 41):
    if k in (3, 17):
        scale, tracker = f32(scale * 0.5), 0
    else:
        tracker += 1
        if tracker == 8:
            g = f32(scale * 2.0)
            if g != float('inf'): scale = g
            tracker = 0
    out.append(scale)
print(repr(out))
EOF
)"
expect_out "scaler text" "growth_interval 8 (PyTorch's default is 2000)" "skipped steps: 3, 17 (2 of 40)" \
  "backoff x0.5" "growth x2" "final scale:" -- scaler --steps 40 --overflow-at 3,17 --growth-interval 8
expect_json "scaler --json trajectory" "
d['command'] == 'scaler' and d['skipped_steps'] == [3, 17] and len(d['steps']) == 40 and
[s['scale_after'] for s in d['steps']] == $scaler_expect and
d['options'] == {'init_scale': 65536, 'growth_factor': 2, 'backoff_factor': 0.5, 'growth_interval': 8} and
all(set(s) == {'step', 'overflow', 'skipped', 'scale', 'inverse_scale', 'scale_after', 'growth_tracker', 'event'}
    for s in d['steps']) and
d['steps'][0]['inverse_scale'] == 2.0**-16 and d['steps'][2]['event'] == 'backoff' and
d['steps'][10]['event'] == 'growth' and d['final_scale'] == d['steps'][-1]['scale_after']
" -- scaler --steps 40 --overflow-at 3,17 --growth-interval 8 --json
expect_json "scaler defaults: no overflow, no growth in 40 steps" "
d['skipped_steps'] == [] and all(s['scale_after'] == 65536 for s in d['steps']) and d['steps'][-1]['growth_tracker'] == 40" \
  -- scaler --json
expect_json "scaler random pattern is reproducible and skips exactly the overflow steps" "
[s['step'] for s in d['steps'] if s['overflow']] == d['skipped_steps'] and 0 < len(d['skipped_steps']) < 200" \
  -- scaler --steps 200 --overflow-prob 0.1 --seed 5 --json
run scaler --steps 200 --overflow-prob 0.1 --seed 5 --json
first=$out
run scaler --steps 200 --overflow-prob 0.1 --seed 5 --json
checks=$((checks + 1))
[[ $out == "$first" ]] || fail "scaler --seed: two runs differ"
expect_json "scaler probability 1 skips everything" "len(d['skipped_steps']) == 5 and d['final_scale'] == 2048" \
  -- scaler --steps 5 --overflow-prob 1 --json
# 2^127 * 2 is not a float32: growth is blocked and the scale kept (GradScaler never grows to inf)
expect_json "scaler growth blocked at float32's top" "
[s['event'] for s in d['steps']] == ['growth_blocked'] * 3 and d['final_scale'] == 2.0**127" \
  -- scaler --steps 3 --growth-interval 1 --init-scale 0x1p127 --json
expect_json "scaler hex float init scale" "d['options']['init_scale'] == 1024" -- scaler --steps 2 --init-scale 0x1p10 --json
expect_out "scaler --help has examples and schema" "Examples:" "\"skipped_steps\"" "skipped steps: 3" -- scaler --help

expect_error "steps zero" "--steps: '0' is too small (accepted: a whole number from 1 to 1000000)" -- scaler --steps 0
expect_error "steps negative" "--steps: '-1' is negative (accepted: a whole number from 1 to 1000000)" -- scaler --steps -1
expect_error "steps not a number" "--steps: 'x' is not a whole number" -- scaler --steps x
expect_error "overflow step out of range" "--overflow-at step: '41' is too large (accepted: a whole number from 1 to 40)" \
  -- scaler --steps 40 --overflow-at 3,41
expect_error "overflow step negative" "--overflow-at step: '-3' is negative" -- scaler --overflow-at 1,-3
expect_error "overflow step not a number" "--overflow-at step: 'a' is not a whole number" -- scaler --overflow-at 3,a
expect_error "empty overflow step" "--overflow-at step: '' is not a whole number" -- scaler --overflow-at 3,,4
expect_error "probability above 1" "--overflow-prob '1.5' is not a probability (accepted: 0 to 1)" -- scaler --overflow-prob 1.5
expect_error "probability negative" "--overflow-prob '-0.1' is not a probability" -- scaler --overflow-prob -0.1
expect_error "probability not a number" "--overflow-prob 'often' is not a number" -- scaler --overflow-prob often
expect_error "both patterns" "excludes" -- scaler --overflow-at 3 --overflow-prob 0.5
expect_error "growth factor" "--growth-factor '1' must be finite and greater than 1" -- scaler --growth-factor 1
expect_error "backoff factor" "--backoff-factor '1.5' must be between 0 and 1" -- scaler --backoff-factor 1.5
expect_error "init scale" "--init-scale '0' must be positive and finite" -- scaler --init-scale 0
expect_error "init scale overflows float" "--init-scale '1e39' must be positive and finite" -- scaler --init-scale 1e39
expect_error "growth interval" "--growth-interval: '0' is too small (accepted: a whole number from 1 to 2147483648)" -- \
  scaler --growth-interval 0
expect_error "growth interval negative" "--growth-interval: '-1' is negative" -- scaler --growth-interval -1

cli_finish floatlab_amp
