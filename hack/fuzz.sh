#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each (go test -fuzz takes one target at a time).
set -euo pipefail
fuzztime=${1:-10s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "fuzz $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg"
  done
done
