#!/usr/bin/env bash
# On the GPU machine, from the repository root (see README.md):
#   tools/h200/go.sh start "STEP ..."   unpack devrun/b.tar.xz (once, or again with NEWBIN=1),
#                                      start queue.sh on the steps in a session of its own
#   tools/h200/go.sh poll [SECONDS]     wait for the queue up to SECONDS (default 540), print
#                                      its log, pack what is done into $OUT/r.tgz
set -u
Q=/tmp/q
B=/tmp/b2
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
start)
  [ $# -eq 2 ] || { echo "usage: go.sh start \"STEP ...\"" >&2; exit 2; }
  if [ ! -x $B/cuzk ] || [ "${NEWBIN:-0}" = 1 ]; then
    rm -rf $B
    tar -C /tmp -xJf devrun/b.tar.xz || { echo "cannot unpack devrun/b.tar.xz (carry devrun)" >&2; exit 1; }
  fi
  [ -f $Q/running ] && { echo "a queue is running: poll it first" >&2; exit 1; }
  rm -rf $Q && mkdir -p $Q/res
  cp -r "$here" $Q/tools
  touch $Q/running
  setsid nohup bash $Q/tools/queue.sh "$2" >$Q/log 2>&1 </dev/null &
  sleep 3
  cat $Q/log
  ;;
poll)
  limit=${2:-540}
  start=$SECONDS
  # What is done is packed every 20 s as well as at the end, so that a call cut short (its
  # time limit, the session's device time) still brings it back.
  pack_done() {
    [ -n "${OUT:-}" ] || return 0
    tar -C $Q -czf "$OUT/.r.tgz" res log && mv "$OUT/.r.tgz" "$OUT/r.tgz"
  }
  next_pack=$((SECONDS + 20))
  while [ -f $Q/running ] && [ $((SECONDS - start)) -lt "$limit" ]; do
    sleep 5
    if [ $SECONDS -ge $next_pack ]; then pack_done; next_pack=$((SECONDS + 20)); fi
  done
  tail -60 $Q/log
  pack_done
  if [ -f $Q/running ]; then echo "QUEUE STILL RUNNING: poll again now"; else echo "QUEUE DONE"; fi
  ;;
*)
  echo "usage: go.sh start \"STEP ...\" | poll [SECONDS]" >&2
  exit 2
  ;;
esac
