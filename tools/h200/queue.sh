#!/usr/bin/env bash
# The queue go.sh starts: runs each named step in order, its output in res/STEP.log, and
# prints a table of the steps (result, seconds) at the end. See README.md for the steps.
set -u
Q=/tmp/q
B=/tmp/b2
T=$Q/tools
R=$Q/res
PP=/tmp/pp
export RUST_BACKTRACE=1

# make_params for a test circuit once: /tmp/KIND_LOG.params.
params_for() {
  local f=/tmp/${1/:/_}.params
  [ -f "$f" ] || $B/bench/make_params --circuit "$1" --out "$f" >&2 || return 1
  echo "$f"
}

# cuzk and the peer on the same parameters, r and s: timings and the proof bytes compared.
pair() {
  local f
  f=$(params_for "$1") || return 1
  $B/bench/bench_groth16 --params "$f" --proof-out /tmp/cuzk.proof --json "$R/cuzk-${1/:/_}.json" "$1" || return 1
  [ -x $B/supraseal-peer ] || { echo "no supraseal-peer in the bundle"; return 1; }
  # PEER_RUNS=N (go.sh's environment): the peer's proofs after its warm-up (3), each with its
  # own synthesis, about a minute at sha 2^26.
  $B/supraseal-peer --params "$f" --circuit "$1" --runs "${PEER_RUNS:-3}" --proof-out /tmp/peer.proof \
    --json "$R/peer-${1/:/_}.json" || return 1
  cmp /tmp/cuzk.proof /tmp/peer.proof && echo "same proof bytes"
}

# Nsight Compute's options for kernel durations (ncu_pair, ncu_peer, ncu-g2).
NCU_TIMES="--clock-control none --metrics gpu__time_duration.sum --csv"

# Nsight Compute: every kernel's duration, for cuzk and the peer on the same parameters.
# ncu_pair CIRCUIT [b-g2-cpu|b-g2-gpu]: the second form times cuzk alone with B_G2 on the CPU
# or on the GPU for every proof (under the profiler the measured pace makes auto put it on the
# CPU after the first proof).
ncu_pair() {
  local f
  f=$(params_for "$1") || return 1
  if [ "${2:-}" = b-g2-cpu ] || [ "${2:-}" = b-g2-gpu ]; then
    # BENCH=bench_groth16_before: the previous bundle's (pack.sh with BEFORE=), same parameters.
    local bench=${BENCH:-bench_groth16} csv="$R/ncu-cuzk-${1/:/_}-$2${BENCH:+-before}.csv"
    ncu $NCU_TIMES --log-file "$csv" $B/bench/$bench --params "$f" --b-g2 "${2#b-g2-}" "$1" || return 1
    python3 $T/ncusum.py "$csv" 12 4  # 8 GPU parts alone and 4 full proofs
    return
  fi
  ncu $NCU_TIMES --log-file "$R/ncu-cuzk-${1/:/_}.csv" $B/bench/bench_groth16 --params "$f" "$1" || return 1
  python3 $T/ncusum.py "$R/ncu-cuzk-${1/:/_}.csv"
  if [ -x $B/supraseal-peer ]; then ncu_peer "$1" || return 1; fi
}

# Nsight Compute over the peer alone (its warm-up and one proof), on ncu_pair's parameters:
# with ncu_pair CIRCUIT b-g2-gpu, the two sides of a per-proof ratio without cuzk's plain run.
ncu_peer() {
  local f
  f=$(params_for "$1") || return 1
  [ -x $B/supraseal-peer ] || { echo "no supraseal-peer in the bundle"; return 1; }
  ncu $NCU_TIMES --log-file "$R/ncu-peer-${1/:/_}.csv" $B/supraseal-peer --params "$f" --circuit "$1" --runs 1 || return 1
  python3 $T/ncusum.py "$R/ncu-peer-${1/:/_}.csv" 2 2  # its warm-up and one proof
}

bench32() {  # bench32 CONFIG KIND NAME ARGS...
  local config=$1 kind=$2 name=$3
  shift 3
  $B/cuzk bench --config "$T/$config" --kind "$kind" --sector-size 32GiB --param-cache $PP --skip-alone \
    --json "$R/$name.json" --timeline "$R/$name.svg" "$@"
}

before_after() {  # before_after NAME BENCH ARGS...: the previous bundle's BENCH (pack.sh with
  # BEFORE=archive, as BENCH_before) and this one's, alternating, twice (AB_RUNS=N in go.sh's
  # environment: N times, for a call short of device time), each with --json
  local name=$1 bench=$2 n
  shift 2
  [ -x $B/bench/${bench}_before ] || { echo "no ${bench}_before (pack.sh BEFORE=...)"; return 1; }
  for n in $(seq "${AB_RUNS:-2}"); do
    $B/bench/${bench}_before --json $R/$name-before-$n.json "$@" || return 1
    $B/bench/$bench --json $R/$name-after-$n.json "$@" || return 1
  done
}

# Nsight Compute's full set over one kernel launch (the first one after two skipped that the
# regex matches, demangled names): its details (res/NAME-full.csv) and its SASS page with
# stall samples (res/NAME-sass.csv), and a summary of both; the report itself is deleted once
# they are written, being too large to bring back.
ncu_sass() {  # ncu_sass NAME KERNEL_REGEX COMMAND...
  local name=$1 kernel=$2
  shift 2
  ncu --clock-control none --set full --import-source no --kernel-name-base demangled -k "$kernel" -s 2 -c 1 \
    -o $R/$name-full "$@" >/dev/null || return 1
  ncu --import $R/$name-full.ncu-rep --page details --csv >$R/$name-full.csv &&
    ncu --import $R/$name-full.ncu-rep --page source --csv --print-source sass >$R/$name-sass.csv || return 1
  rm -f $R/$name-full.ncu-rep  # too large to bring back; the CSVs hold what is read
  grep -E '"(Duration|Executed Ipc Active|Registers Per Thread|Achieved Occupancy|Local Memory Spilling Requests)"' \
    $R/$name-full.csv | awk -F'","' '{sub(/",?$/, "", $NF); print $(NF-2) ": " $NF " " $(NF-1)}'
  python3 $T/sass_stalls.py $R/$name-sass.csv 12
}

tests() {  # tests NAME...: every test binary runs, whatever failed before it
  local rc=0 t
  for t in "$@"; do $B/tests/$t --test-threads 1 || rc=1; done
  return $rc
}

step() {
  case $1 in
  gpu-tests) tests groth16 device_matrices engine ;;
  urgent) $B/tests/groth16 urgent --nocapture --test-threads 1 ;;
  groth16-tests) tests groth16 ;;
  msm-tests) tests msm msm_g2 ;;
  field-tests) tests field g1 ntt fixed_base ;;
  # memcheck runs kernels one at a time, so the test that urgent kernels run beside a big
  # proof's cannot pass under it: skipped here by name (it runs in groth16-tests). API errors
  # are not reported: the injected-fault test makes a launch fail on purpose, and the tests
  # check every API result themselves; memcheck is here for memory errors.
  memcheck) CUZK_SMALL=1 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 \
      $B/tests/groth16 --test-threads 1 --skip urgent_proofs_overtake_running_kernels ;;
  msm) $B/bench/bench_msm --json $R/msm.json 22 24 26 g2:24 ;;
  msm-g2w) $B/bench/bench_msm --json $R/msm-g2w.json --windows 16,18,20,22 g2:22 g2:24 ;;
  ncu-g2) ncu $NCU_TIMES --log-file $R/ncu-g2.csv \
      -k regex:'chunk_kernel|finish|running_sums|block_sums' \
      -c 40 $B/bench/bench_msm g2:24 && python3 $T/ncusum.py $R/ncu-g2.csv ;;
  ntt) $B/bench/bench_ntt --json $R/ntt.json 20 24 27 ;;
  # The NTT before and after a kernel change, alternating, in one call: bench_ntt_before is
  # the previous bundle's (pack.sh with BEFORE=archive).
  ntt-ab) before_after ntt bench_ntt 20 24 27 || return 1
    python3 $T/compare.py $R/ntt-before-*.json -- $R/ntt-after-*.json ;;
  # The G1 and G2 MSMs, the previous bundle's bench_msm (pack.sh with BEFORE=archive) and this
  # one's, alternating, twice.
  msm-ab) before_after msm bench_msm 24 26 g2:24 || return 1
    python3 $T/compare.py $R/msm-before-*.json -- $R/msm-after-*.json ;;
  # G2 alone (a G2-only kernel change, in a quarter of msm-ab's device time).
  msm-g2-ab) before_after msm-g2 bench_msm g2:24 || return 1
    python3 $T/compare.py $R/msm-g2-before-*.json -- $R/msm-g2-after-*.json ;;
  # One proof after synthesis, the previous bundle's bench_groth16 (pack.sh with BEFORE=archive)
  # and this one's, alternating, twice; B_G2 and the splits on the GPU, no CPU prover.
  groth16-ab) before_after groth16 bench_groth16 --cpu-max 1 --b-g2 gpu --splits gpu sha:22 mix:24 ;;
  affine) [ -x $B/affexp ] || { echo "no affexp in the bundle (tools/affine-experiment)"; return 1; }
    $B/affexp ;;
  # G1's MSM with the patch pack.sh's MSM_VARIANT named against this tree's,
  # alternating, twice (pack.sh builds both).
  msm-variant) [ -x $B/msmexp_main ] && [ -x $B/msmexp_variant ] || { echo "no msmexp_variant in the bundle (pack.sh MSM_VARIANT=...)"; return 1; }
    local n
    for n in 1 2; do
      echo "main:" && $B/msmexp_main 22 24 26 || return 1
      echo "variant:" && $B/msmexp_variant 22 24 26 || return 1
    done ;;
  fp64) [ -x $B/fp64exp ] && [ -x $B/nttmix ] || { echo "no fp64exp or nttmix in the bundle (tools/fp64-experiment)"; return 1; }
    $B/fp64exp && $B/nttmix ;;
  groth16) $B/bench/bench_groth16 --splits host,gpu --json $R/groth16.json sha:22 sha:24 mix:24 mix50:24 ;;
  gen-wpost) $B/cuzk params generate --sector-size 32GiB --kinds wpost --force --param-cache $PP ;;
  gen-porep) $B/cuzk params generate --sector-size 32GiB --kinds porep,winning --force --param-cache $PP ;;
  bench-wpost) bench32 bench-wpost.toml window-post wpost-32g --in-flight 1 --jobs 3 ;;
  bench-porep) bench32 bench.toml porep porep-32g --in-flight 3 --jobs 4 --probe winning-post --probe-every 10 ;;
  bench-porep-24g) bench32 bench.toml porep porep-32g-vram-24g --vram-budget 24GiB --in-flight 2 --jobs 2 ;;
  bench-porep-16g) bench32 bench.toml porep porep-32g-vram-16g --vram-budget 16GiB --in-flight 2 --jobs 2 ;;
  rm-params) rm -rf $PP /tmp/*.params ;;
  ncu-ntt) ncu --clock-control none --set full --import-source no -k regex:'pass_kernel|bitrev_kernel' -c 4 \
      -o $R/ntt-full $B/bench/bench_ntt 27 >/dev/null &&
      ncu --import $R/ntt-full.ncu-rep --page details --csv >$R/ntt-full.csv &&
      grep -E 'pass_kernel|bitrev' $R/ntt-full.csv | grep -E '"(Duration|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Theoretical Occupancy|Executed Ipc Active|L1/TEX Hit Rate|DRAM Throughput)"' ;;
  ncu-chunk) ncu_sass chunk regex:chunk_kernel $B/msmexp_main 24 || return 1
    [ -x devrun/acc/accexp ] && { ncu_sass acc regex:acc_kernel devrun/acc/accexp || return 1; }
    true ;;
  ncu-chunk-variant) [ -x $B/msmexp_variant ] || { echo "no msmexp_variant in the bundle (pack.sh MSM_VARIANT=...)"; return 1; }
    ncu_sass chunk-variant regex:chunk_kernel $B/msmexp_variant 24 ;;
  ncu-chunk-g2) ncu_sass chunk2 regex:'chunk_kernel.*g2' $B/bench/bench_msm g2:24 ;;
  ncu-sha22 | ncu-sha24 | ncu-sha26 | ncu-mix24) c=${1#ncu-}; ncu_pair "${c%%[0-9]*}:${c##*[a-z]}" ;;
  ncu-sha22-b-g2-cpu | ncu-sha24-b-g2-cpu | ncu-sha26-b-g2-cpu | ncu-mix24-b-g2-cpu)
    c=${1#ncu-}; c=${c%-b-g2-cpu}; ncu_pair "${c%%[0-9]*}:${c##*[a-z]}" b-g2-cpu ;;
  ncu-sha22-b-g2-gpu | ncu-sha24-b-g2-gpu | ncu-sha26-b-g2-gpu | ncu-mix24-b-g2-gpu)
    c=${1#ncu-}; c=${c%-b-g2-gpu}; ncu_pair "${c%%[0-9]*}:${c##*[a-z]}" b-g2-gpu ;;
  ncu-peer-sha22 | ncu-peer-sha24 | ncu-peer-sha26 | ncu-peer-mix24) c=${1#ncu-peer-}; ncu_peer "${c%%[0-9]*}:${c##*[a-z]}" ;;
  ncu-sha22-b-g2-gpu-before) [ -x $B/bench/bench_groth16_before ] || { echo "no bench_groth16_before (pack.sh BEFORE=...)"; return 1; }
    BENCH=bench_groth16_before ncu_pair sha:22 b-g2-gpu ;;
  pair-sha22 | pair-sha24 | pair-sha26 | pair-mix24) c=${1#pair-}; pair "${c%%[0-9]*}:${c##*[a-z]}" ;;
  # One proof after synthesis with B_G2 on the CPU and on the GPU, on pair's parameters (no
  # CPU prover): what each place costs, beside pair's row (where auto put it).
  b-g2-sha22 | b-g2-sha24 | b-g2-sha26 | b-g2-mix24) c=${1#b-g2-}; c="${c%%[0-9]*}:${c##*[a-z]}"
    local f
    f=$(params_for "$c") || return 1
    $B/bench/bench_groth16 --cpu-max 0 --params "$f" --b-g2 cpu,gpu --json "$R/b-g2-${c/:/_}.json" "$c" ;;
  *) echo "unknown step $1"; return 2 ;;
  esac
}

# A group "a+b" runs its steps at the same time (e.g. tests beside a parameter generation,
# which uses the GPU little and the disk much); each step still gets its own log and row.
names=() results=() secs=()
for group in $1; do
  IFS=+ read -ra members <<<"$group"
  echo "== $group ($(date +%T))"
  pids=()
  for s in "${members[@]}"; do
    (
      began=$SECONDS
      step "$s" >"$R/$s.log" 2>&1
      echo "$? $((SECONDS - began))" >"$R/$s.rc"
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for s in "${members[@]}"; do
    rc=255 took=?  # a step whose shell died before writing its .rc
    [ -f "$R/$s.rc" ] && read -r rc took <"$R/$s.rc"
    echo "-- $s"
    tail -5 "$R/$s.log"
    names+=("$s") secs+=("$took")
    if [ "$rc" -eq 0 ]; then results+=(PASS); else results+=("FAIL($rc)"); fi
  done
done
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv >"$R/nvidia-smi.txt" 2>&1
echo
printf '%-18s %-9s %6s\n' step result seconds
for i in "${!names[@]}"; do printf '%-18s %-9s %6s\n' "${names[$i]}" "${results[$i]}" "${secs[$i]}"; done
rm -f $Q/running
