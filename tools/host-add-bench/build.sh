#!/usr/bin/env bash
# Builds `hostadd` (README.md) against this checkout's host field and curve code, with the
# host C++ compiler (c++ or $CXX); no CUDA needed.
#   tools/host-add-bench/build.sh [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-hostadd}
"${CXX:-c++}" -std=c++17 -O2 -Wall -Wextra -Wno-unknown-pragmas -I"$root/cuda/src" -I"$root/cuda/tests/common" \
  "$here/main.cpp" -o "$out"
echo "built $out"
