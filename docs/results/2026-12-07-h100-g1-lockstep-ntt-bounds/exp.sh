#!/usr/bin/env bash
# G1 bucket sums in lockstep (msmexp: base = main's G1; A lockstep; B lockstep, 256 threads;
# C 256 threads) and the NTT pass kernels' launch bounds (nttexp: nb main fwd 3 rev 4; nF4
# fwd 4; nR5 rev 5; nF4R5 both), each twice, alternating.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
chmod +x msm/msmexp_* nx/n*
for r in 1 2; do for v in base A B C; do echo "== msm $v run $r"; ./msm/msmexp_$v 22 24 26 2>&1 | grep -v '^$'; done; done
for f in nx/*.build; do echo "${f##*/}: $(awk '/entry function/ {k = ($0 ~ /pass_kernel/) ? $0 : ""; sub(/.*pass_kernel/, "", k); sub(/EEEv.*/, "", k)}
    /spill stores/ && k != "" {sp = $5} /Used [0-9]+ registers/ && k != "" {print k "=" $5 "r/" sp "sp"}' $f | sort -u | tr '\n' ' ')"; done
for r in 1 2; do for v in nb nF4 nR5 nF4R5; do ./nx/$v $v; done; done
