#!/usr/bin/env bash
# Session 19, call 2: sha 2^26 kernel sums beside supraseal's, with window-plan + zero-chunks.
# carry: devrun/b.tar.xz devrun/peer.xz devrun/run4.sh
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
[ -x /tmp/b2/cuzk ] || tar -C /tmp -xJf devrun/b.tar.xz
[ -x /tmp/b2/supraseal-peer ] || { xz -dc devrun/peer.xz > /tmp/b2/supraseal-peer && chmod +x /tmp/b2/supraseal-peer; }
if [ -f /tmp/q/running ]; then tools/h200/go.sh poll ${POLL:-560}; exit; fi
tools/h200/go.sh start "${STEPS:-ncu-sha26-b-g2-gpu ncu-peer-sha26}"
tools/h200/go.sh poll ${POLL:-540}
