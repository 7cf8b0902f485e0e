#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each (go test -fuzz takes one target at a
# time) and fails a target that executed fewer inputs than its minimum: a stalled or idle fuzzer
# finds nothing, and passing it would hide that.
set -euo pipefail
fuzztime=${1:-10s}
# Fuzzing workers per target: go's default is one per core; make test runs one beside the
# conformance tier, whose control planes want the other core.
parallel=${2:+-parallel $2}
# The minimum executions of every target in FUZZTIME: well below what each reaches in 10 s on a
# loaded 2-core machine (the least seen, FuzzUserData's 3,313).
min=${FUZZ_MIN_EXECS:-500}
failed=0
# Each run starts from the seeds and the checked-in corpus (testdata/fuzz) alone, in a cache of its
# own: go's cache under GOCACHE keeps every interesting input of every earlier run, and replaying
# them is counted in FUZZTIME (FuzzParseMessage replayed 217 of 254 cached inputs in 10 s and ran
# 0 new ones; 5,536 from a fresh cache). Crashers still go to testdata/fuzz.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
# One go list for every package's folder: one per package took seconds each on this module.
go list -f '{{.ImportPath}} {{.Dir}}' ./... > "$cache/packages"
while read -r pkg dir; do
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    # -fuzzminimizetime 0s: the engine otherwise spends up to a minute shrinking each new
    # interesting input and counts no executions meanwhile (FuzzLoad: 393 to 28,580 in 10 s,
    # stalled for seconds at a time; 30,002 to 49,628 without; the 12 of a package's first target
    # were the same stall). A crasher is still reported and kept, unshrunk.
    # Go 1.26's fuzzing coordinator can end a run with a bare "context deadline exceeded" and no
    # failing input when -fuzztime expires under load (go.dev/issue/75804, fixed in Go 1.27): such
    # a run is retried, up to twice. A real failure writes its input and fails at once.
    for attempt in 1 2 3; do
      if out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 0s $parallel "$pkg" -args -test.fuzzcachedir="$cache/$target" 2>&1); then
        break
      fi
      if [ "$attempt" -lt 3 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written to' <<<"$out"; then
        echo "fuzz $pkg $target: the fuzzing coordinator's deadline race (go.dev/issue/75804), no failing input; again"
        continue
      fi
      echo "$out"
      exit 1
    done
    execs=$(printf '%s\n' "$out" | sed -n 's/.*execs: \([0-9]*\).*/\1/p' | tail -1)
    execs=${execs:-0}
    if [ "$execs" -lt "$min" ]; then
      echo "fuzz $pkg $target: $execs execs in $fuzztime, below the minimum $min"
      failed=1
    else
      echo "fuzz $pkg $target: $execs execs in $fuzztime (min $min)"
    fi
  done
done < "$cache/packages"
exit $failed
