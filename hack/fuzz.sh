#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each (go test -fuzz takes one target at a
# time) and fails a target that executed fewer inputs than its minimum: a stalled or idle fuzzer
# finds nothing, and passing it would hide that.
set -euo pipefail
fuzztime=${1:-10s}
# The minimum executions of every target in FUZZTIME: well below what each reaches in 10 s on a
# loaded 2-core machine (the least, 5,276).
min=${FUZZ_MIN_EXECS:-500}
failed=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    # A first short run starts the instrumented binary once, so that the measured run's count is
    # not eaten by a cold start (the first target of a package reached 12 executions without it).
    go test -run '^$' -fuzz "^$target\$" -fuzztime 1x "$pkg" >/dev/null 2>&1 || true
    out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg" 2>&1) || { echo "$out"; exit 1; }
    execs=$(printf '%s\n' "$out" | sed -n 's/.*execs: \([0-9]*\).*/\1/p' | tail -1)
    execs=${execs:-0}
    if [ "$execs" -lt "$min" ]; then
      echo "fuzz $pkg $target: $execs execs in $fuzztime, below the minimum $min"
      failed=1
    else
      echo "fuzz $pkg $target: $execs execs in $fuzztime (min $min)"
    fi
  done
done
exit $failed
