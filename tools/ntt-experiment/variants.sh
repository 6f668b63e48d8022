#!/usr/bin/env bash
# On the GPU machine, from the repository root: builds nttexp for the old tree (devrun/old,
# `git archive` of an earlier commit) and this tree's variants in parallel, runs each twice,
# alternating, then ncu's stall reasons for the first three passes of the variants named last.
#   tools/ntt-experiment/variants.sh "NAME:FLAGS ..." "NCU_NAMES"
# FLAGS are -D flags joined by commas (empty: this tree as it is); NCU_NAMES may include old.
set -u
here=tools/ntt-experiment
# PREBUILT=DIR: the binaries (and their .build logs) are already there, built elsewhere with
# the same names; nothing is built.
X=${PREBUILT:-/tmp/nx}; mkdir -p $X
chmod +x $X/* 2>/dev/null
if [ -z "${PREBUILT:-}" ]; then
  [ -d devrun/old ] && { $here/build.sh devrun/old $X/old -Xptxas -v >$X/old.build 2>&1 & }
  for v in $1; do
    IFS=: read -r name flags <<<"$v"
    $here/build.sh . $X/$name ${flags//,/ } -Xptxas -v >$X/$name.build 2>&1 &
  done
  wait
fi
for f in $X/*.build; do
  grep -q "^built" $f || { echo "BUILD FAILED: $f"; tail -20 $f; }
  echo "${f##*/}: $(awk '/entry function/ {k = ($0 ~ /pass_kernel/) ? $0 : ""; sub(/.*pass_kernel/, "", k); sub(/EEEv.*/, "", k)}
    /spill stores/ && k != "" {sp = $5} /Used [0-9]+ registers/ && k != "" {print k "=" $5 "r/" sp "sp"}' $f | sort -u | tr '\n' ' ')"
done
printf "%-14s %9s %9s %9s %9s  %s\n" variant fwd2^24 h2^24 fwd2^27 h2^27 hash
for n in 1 2; do
  [ -x $X/old ] && $X/old old
  for v in $1; do
    IFS=: read -r name flags <<<"$v"
    $X/$name "$name"
  done
done
for name in $2; do
  mkdir -p /tmp/ncu
  ncu --clock-control none -k regex:pass_kernel -c 3 --csv \
    --metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,regex:^sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$' \
    $X/$name $name >/tmp/ncu/${name}.csv 2>/tmp/ncu/${name}.err || { echo "ncu failed for $name"; tail -5 /tmp/ncu/${name}.err; continue; }
  echo "== ncu $name"; python3 $here/stalls.py /tmp/ncu/${name}.csv
done
[ -n "${OUT:-}" ] && tar -C /tmp -czf $OUT/ncu.tgz ncu 2>/dev/null; true
