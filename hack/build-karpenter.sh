#!/usr/bin/env bash
# Builds the real Karpenter controller (github.com/aws/karpenter-provider-aws/cmd/controller, the
# release below, with Go 1.27.3, which the Go command fetches from the module proxy) into a
# versioned cache folder under $HOME. Idempotent: instant when the binary is present.
#
# It builds in hack/fidelity's module, whose go.mod holds Karpenter's release, and each of the 115
# modules linked into the controller at the version Karpenter's own go.mod builds it with (keep
# them so: golang.org/x/tools v0.50.0 is the newest that reads Go 1.27's export data without
# raising any of them). hack/build-fidelity.sh has then compiled nearly every package the
# controller needs (go/packages compiles them for their export data, with the same flags), so the
# build reuses them from Go's build cache instead of compiling them a second time.
#
#   hack/build-karpenter.sh          -> prints the binary's path
#
# The conformance tier and `nodepilot demo --autoscaler karpenter` run it; they fail, naming
# this script, when it is missing. After hack/build-fidelity.sh it takes seconds (7 s measured with
# Go's build cache otherwise cold); alone, about 8 minutes on 2 cores.
set -euo pipefail

KARPENTER_VERSION=v1.14.3
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE_ROOT=${NODEPILOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodepilot}
DIR=$CACHE_ROOT/karpenter/$KARPENTER_VERSION
BIN=$DIR/controller

say() { printf 'karpenter: %s\n' "$*" >&2; }

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
if ! flock -n 9; then
  say "another build holds $DIR/.lock; waiting for it"
  flock 9
fi
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

export GOTOOLCHAIN=go1.27.3
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start ))s"; }
say "building Karpenter $KARPENTER_VERSION's controller with $GOTOOLCHAIN into $DIR"
say "seconds after hack/build-fidelity.sh, which compiles what it needs; about 8 minutes alone on 2 cores; later runs are instant"
# Into a temporary folder, then renamed: an interrupted build never leaves a half binary.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$HERE/fidelity"
have=$(go list -m -f '{{.Version}}' github.com/aws/karpenter-provider-aws)
if [ "$have" != "$KARPENTER_VERSION" ]; then
  say "hack/fidelity/go.mod requires karpenter-provider-aws $have, not $KARPENTER_VERSION: keep the two in step"
  exit 1
fi
# shellcheck source=hack/progress.sh
. "$HERE/progress.sh"
go build -v -ldflags="-s -w" -o "$tmp/controller" github.com/aws/karpenter-provider-aws/cmd/controller 2>&1 | progress karpenter
mv "$tmp/controller" "$BIN"
say "done in $(elapsed)"
echo "$BIN"
