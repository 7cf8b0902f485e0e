#!/usr/bin/env bash
# Builds hack/fidelity (with Go 1.27.3, which the Go command fetches from the module proxy, and
# Karpenter v1.14.3's modules) and runs it once to read Karpenter's facts, into a cache folder
# under $HOME named after the hash of hack/fidelity's files. Idempotent: instant when present.
#
#   hack/build-fidelity.sh       -> prints the folder: fidelity (the command), facts.json, crds/
#
# The fidelity tests (go test ./...) fail, naming this script, when the folder is missing.
# A cold run takes about 8 minutes on 2 cores (471 s measured with an empty build cache, 611 s
# with the module cache empty too: the toolchain and Karpenter's modules downloaded, then
# compiled and type-checked). What it compiles is what hack/build-karpenter.sh then reuses.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE_ROOT=${NODEPILOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodepilot}
# The key is the same sha256 the tests compute (kube/apis/upstream): go.mod, go.sum, then the
# .go files in name order.
KEY=$(cd "$HERE/fidelity" && cat go.mod go.sum $(LC_ALL=C ls *.go) | sha256sum | cut -c1-16)
DIR=$CACHE_ROOT/fidelity/$KEY

say() { printf 'fidelity: %s\n' "$*" >&2; }

if [ -f "$DIR/facts.json" ] && [ -x "$DIR/fidelity" ]; then echo "$DIR"; exit 0; fi
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
if [ -f "$DIR/facts.json" ] && [ -x "$DIR/fidelity" ]; then echo "$DIR"; exit 0; fi

export GOTOOLCHAIN=go1.27.3
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start ))s"; }
say "building hack/fidelity with $GOTOOLCHAIN against Karpenter's modules into $DIR"
say "a cold build takes about 8 minutes on 2 cores (toolchain and modules downloaded); later runs are instant"
# shellcheck source=hack/progress.sh
. "$HERE/progress.sh"
(cd "$HERE/fidelity" && go build -v -o "$DIR/fidelity.tmp" . 2>&1 | progress fidelity)
say "[$(elapsed)] built; reading Karpenter's metrics, events, hash versions and CRDs (compiling every Karpenter package for its export data: about 5 minutes when cold)"
(cd "$HERE/fidelity" && "$DIR/fidelity.tmp" facts -out "$DIR")
mv "$DIR/fidelity.tmp" "$DIR/fidelity"
say "done in $(elapsed)"
echo "$DIR"
