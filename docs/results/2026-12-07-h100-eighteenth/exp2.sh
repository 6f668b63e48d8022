#!/usr/bin/env bash
# The NTT's launch bounds further (nttexp: nb main, nF4R5 the branch, nF5R5, nF5R6), twice,
# alternating; then G1 MSM window widths against the plan's (msmexp of main's G1, one run each).
cd "$(dirname "$0")"
chmod +x msm/msmexp_* nx/n*
for f in nx/nF5*.build; do echo "${f##*/}: $(awk '/entry function/ {k = ($0 ~ /pass_kernel/) ? $0 : ""; sub(/.*pass_kernel/, "", k); sub(/EEEv.*/, "", k)}
    /spill stores/ && k != "" {sp = $5} /Used [0-9]+ registers/ && k != "" {print k "=" $5 "r/" sp "sp"}' $f | sort -u | tr '\n' ' ')"; done
for r in 1 2; do for v in nb nF4R5 nF5R5 nF5R6; do ./nx/$v $v; done; done
./msm/msmexp_base 24 24:19:1 24:21:1 24:22:1 26 26:19:1 26:21:1 26:22:1 2>&1 | grep -v '^$'
