#!/usr/bin/env bash
# Runs the cuzk GPU bundle made by `cargo xtask gpu-bundle`, on a machine with an NVIDIA GPU
# and driver. Nothing else is needed: the CUDA runtime is linked into the binaries.
#
#   ./run.sh [tests] [sanitizer] [bench]      (no argument: all three, in this order)
#
#   tests      every executable in tests/, with --test-threads=1
#   sanitizer  every test executable under compute-sanitizer memcheck, then racecheck, with
#              CUZK_SMALL=1 (the tests then keep to small sizes)
#   bench      every executable in bench/
#
# The output of every step goes to $OUT/run.log ($OUT defaults to ./out); benchmark output is
# also printed, and the end of a failed step's output. The summary table (step, result,
# seconds) is printed last and written to $OUT/summary.txt. Results: PASS, FAIL, or N/A for a
# step that could not run here (no compute-sanitizer, or a device it does not support), with
# the reason. Exit status: 1 if any step failed, else 0.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
log=$out/run.log
: >"$log"

phases=("$@")
[ ${#phases[@]} -eq 0 ] && phases=(tests sanitizer bench)
for phase in "${phases[@]}"; do
  case $phase in
    tests | sanitizer | bench) ;;
    *) echo "unknown phase '$phase' (expected tests, sanitizer or bench)" >&2; exit 2 ;;
  esac
done
wants() { local p; for p in "${phases[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

names=() results=() times=() notes=()
record() { names+=("$1"); results+=("$2"); times+=("$3"); notes+=("${4:-}"); }

# run_step NAME SHOW COMMAND...: runs COMMAND with its output in the log (and on stdout when
# SHOW is 1); sets step_rc, step_secs and step_out (a file with the step's output).
step_out=$(mktemp)
trap 'rm -f "$step_out"' EXIT
run_step() {
  local name=$1 show=$2
  shift 2
  echo "== $name" | tee -a "$log"
  echo "\$ $*" >>"$log"
  local start=$EPOCHREALTIME
  if [ "$show" = 1 ]; then
    "$@" 2>&1 | tee "$step_out"
    step_rc=${PIPESTATUS[0]}
  else
    "$@" >"$step_out" 2>&1
    step_rc=$?
  fi
  step_secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  cat "$step_out" >>"$log"
  echo "== $name: exit $step_rc after ${step_secs}s" >>"$log"
}

show_failure() {
  echo "-- last lines of $1 (full output in $log):"
  tail -n 40 "$step_out"
}

tests=()
for f in "$here"/tests/*; do [ -f "$f" ] && [ -x "$f" ] && tests+=("$f"); done
benches=()
for f in "$here"/bench/*; do [ -f "$f" ] && [ -x "$f" ] && benches+=("$f"); done

if wants tests; then
  if [ ${#tests[@]} -eq 0 ]; then
    echo "no test executables in this bundle (gpu-tests/tests/ had none)"
    record "tests" "N/A" "0.0" "no test executables in this bundle"
  fi
  for t in "${tests[@]}"; do
    name="test:$(basename "$t")"
    run_step "$name" 0 "$t" --test-threads=1
    if [ "$step_rc" -eq 0 ]; then
      record "$name" PASS "$step_secs" "$(grep -h '^test result:' "$step_out" | tail -n 1 | cut -c14-)"
    else
      record "$name" FAIL "$step_secs" "exit $step_rc"
      show_failure "$name"
    fi
  done
fi

if wants sanitizer; then
  sanitizer=$(command -v compute-sanitizer || true)
  for dir in ${CUDA_HOME:+"$CUDA_HOME/bin"} /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
    [ -z "$sanitizer" ] && [ -x "$dir/compute-sanitizer" ] && sanitizer=$dir/compute-sanitizer
  done
  if [ -z "$sanitizer" ]; then
    echo "compute-sanitizer not found (not on PATH, nor in /usr/local/cuda/bin): sanitizer runs skipped"
    record "sanitizer" "N/A" "0.0" "compute-sanitizer not found on PATH or in /usr/local/cuda/bin"
  elif [ ${#tests[@]} -eq 0 ]; then
    record "sanitizer" "N/A" "0.0" "no test executables in this bundle"
  else
    echo "compute-sanitizer: $sanitizer"
    for tool in memcheck racecheck; do
      for t in "${tests[@]}"; do
        name="$tool:$(basename "$t")"
        # API errors are not reported: some tests cause them on purpose (an injected launch
        # fault, an unknown device), and the library checks every API call itself, so a real
        # one fails its test. Memory and race errors in kernels are what the tools are for.
        run_step "$name" 0 env CUZK_SMALL=1 "$sanitizer" --tool "$tool" --report-api-errors no \
          --error-exitcode 86 "$t" --test-threads=1
        if [ "$step_rc" -eq 0 ]; then
          record "$name" PASS "$step_secs" "$(grep -h 'ERROR SUMMARY' "$step_out" | tail -n 1 | sed 's/^=* *//')"
        elif grep -q "Device not supported" "$step_out"; then
          record "$name" "N/A" "$step_secs" "compute-sanitizer does not support this device"
          echo "-- compute-sanitizer does not support this device; $name not run"
        else
          record "$name" FAIL "$step_secs" "exit $step_rc"
          show_failure "$name"
        fi
      done
    done
  fi
fi

if wants bench; then
  if [ ${#benches[@]} -eq 0 ]; then
    echo "no benchmark binaries in this bundle (gpu-tests/src/bin/ had none)"
    record "bench" "N/A" "0.0" "no benchmark binaries in this bundle"
  fi
  for b in "${benches[@]}"; do
    name="bench:$(basename "$b")"
    # The kernel benchmarks write their figures as JSON too, kept under docs/results/.
    json_args=()
    case "$(basename "$b")" in
      bench_msm | bench_ntt | bench_groth16) json_args=(--json "$out/$(basename "$b").json") ;;
    esac
    run_step "$name" 1 "$b" "${json_args[@]}"
    if [ "$step_rc" -eq 0 ]; then
      record "$name" PASS "$step_secs"
    else
      record "$name" FAIL "$step_secs" "exit $step_rc"
    fi
  done
fi

passed=0 failed=0 not_run=0
{
  echo
  echo "== summary (logs in $log)"
  printf '%-44s %-6s %9s  %s\n' step result seconds note
  for i in "${!names[@]}"; do
    printf '%-44s %-6s %9s  %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}" "${notes[$i]}"
    case ${results[$i]} in
      PASS) passed=$((passed + 1)) ;;
      FAIL) failed=$((failed + 1)) ;;
      *) not_run=$((not_run + 1)) ;;
    esac
  done
  echo "steps: $passed passed, $failed failed, $not_run not run"
} | tee "$out/summary.txt"
# The counters above were set in a subshell (the pipeline); count the failures again here.
for r in "${results[@]}"; do [ "$r" = FAIL ] && exit 1; done
exit 0
