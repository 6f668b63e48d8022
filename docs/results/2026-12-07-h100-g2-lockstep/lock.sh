#!/usr/bin/env bash
# The G2 lockstep variant: G2 MSM tests, G2 MSM 2^24 before/after twice, then (when asked)
# the prover's tests and memcheck. Results under $OUT.
set -u
B=/tmp/b2
[ -x $B/cuzk ] || tar -C /tmp -xJf devrun/b.tar.xz || exit 1
cd "$OUT"
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv > nvidia-smi.txt
t0=$SECONDS
$B/tests/msm_g2 --test-threads 1 > msm_g2.log 2>&1; echo "msm_g2 rc=$? ($((SECONDS - t0)) s)"; grep "test result" msm_g2.log
for i in 1 2; do
  $B/bench/bench_msm_before --json g2-before-$i.json g2:24 > g2-before-$i.log 2>&1
  $B/bench/bench_msm --json g2-after-$i.json g2:24 > g2-after-$i.log 2>&1
done
echo "A/B done ($((SECONDS - t0)) s)"; for f in g2-before-1 g2-after-1 g2-before-2 g2-after-2; do echo "$f: $(grep '2^24' $f.log)"; done
[ "${FULL:-0}" = 1 ] || exit 0
$B/tests/msm --test-threads 1 > msm.log 2>&1; echo "msm rc=$?"; grep "test result" msm.log
$B/tests/groth16 --test-threads 1 > groth16.log 2>&1; echo "groth16 rc=$? ($((SECONDS - t0)) s)"; grep "test result" groth16.log
CUZK_SMALL=1 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 \
  $B/tests/groth16 --test-threads 1 --skip urgent_proofs_overtake_running_kernels > memcheck.log 2>&1
echo "memcheck rc=$? ($((SECONDS - t0)) s)"; grep -E "test result|ERROR SUMMARY" memcheck.log
