#!/usr/bin/env bash
# Builds the local control plane's binaries (etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager from k8s.io/kubernetes, kwok and metrics-server) through the Go module
# proxy into a versioned cache folder under $HOME. Idempotent: instant when everything is present.
#
#   hack/build-k8s-bins.sh          -> prints the folder holding the binaries
#
# A cold build takes about 25 minutes on 2 cores (3.6 GB of Go build cache, 3 GB peak RAM).
# The wrapper module in hack/k8s-bins pins every k8s.io staging module to the release, because
# k8s.io/kubernetes points its staging modules at local folders that Go ignores in dependencies,
# and holds kwok as a tool at the release below.
set -euo pipefail

K8S_VERSION=v1.37.2
KWOK_VERSION=v0.8.0
METRICS_SERVER_VERSION=v0.8.0
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE_ROOT=${NODEPILOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodepilot}
BIN_DIR=$CACHE_ROOT/k8s-bins/$K8S_VERSION-kwok-$KWOK_VERSION

say() { printf 'k8s-bins: %s\n' "$*" >&2; }

components=(etcd kube-apiserver kube-scheduler kube-controller-manager kwok metrics-server)
# The folder is named by the Kubernetes and kwok versions; metrics-server's version is stamped
# beside its binary, so that changing METRICS_SERVER_VERSION rebuilds it.
needed() { # needed NAME: missing, or built from another version than this script names
  [ -x "$BIN_DIR/$1" ] || return 0
  [ "$1" != metrics-server ] || [ "$(cat "$BIN_DIR/metrics-server.version" 2>/dev/null)" = "$METRICS_SERVER_VERSION" ] || return 0
  return 1
}
missing=()
for c in "${components[@]}"; do if needed "$c"; then missing+=("$c"); fi; done
if [ ${#missing[@]} -eq 0 ]; then echo "$BIN_DIR"; exit 0; fi

mkdir -p "$BIN_DIR"
# One build at a time: a second caller waits instead of doubling the 3 GB peak.
exec 9>"$BIN_DIR/.lock"
if ! flock -n 9; then
  say "another build holds $BIN_DIR/.lock; waiting for it"
  flock 9
fi
missing=()
for c in "${components[@]}"; do if needed "$c"; then missing+=("$c"); fi; done
if [ ${#missing[@]} -eq 0 ]; then echo "$BIN_DIR"; exit 0; fi

say "building ${missing[*]} into $BIN_DIR"
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start ))s"; }

cd "$HERE/k8s-bins"
# kwok is a tool of the same module as Kubernetes' binaries (its go.mod pins kwok's release), so
# it builds against the same libraries, compiled once for all five. metrics-server v0.8.0 cannot:
# its generated OpenAPI names do not resolve with Kubernetes v1.37's libraries (it panics at
# start), so it is installed as released, with the libraries of its own go.mod.
have=$(go list -m -f '{{.Version}}' sigs.k8s.io/kwok)
if [ "$have" != "$KWOK_VERSION" ]; then
  say "hack/k8s-bins/go.mod requires sigs.k8s.io/kwok $have, not $KWOK_VERSION: keep the two in step"
  exit 1
fi
pkgs=()
for c in "${missing[@]}"; do
  case $c in
    etcd) pkgs+=(go.etcd.io/etcd/server/v3) ;;
    kwok) pkgs+=(sigs.k8s.io/kwok/cmd/kwok) ;;
    kube-*) pkgs+=("k8s.io/kubernetes/cmd/$c") ;;
  esac
done

# shellcheck source=hack/progress.sh
. "$HERE/progress.sh"

# Into a temporary folder, then renamed, so an interrupted build never leaves a half binary.
tmp=$(mktemp -d "$BIN_DIR/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ ${#pkgs[@]} -gt 0 ]; then
  say "[$(elapsed)] downloading modules"
  total=$(go list -deps "${pkgs[@]}" | wc -l)
  say "[$(elapsed)] compiling up to $total packages (about 20 minutes on 2 cores when Go's build cache is cold)"
  # One go build links its binaries in parallel.
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  go build -v -trimpath -o "$tmp/" -ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
-X k8s.io/component-base/version.gitTreeState=clean" "${pkgs[@]}" 2>&1 | progress "of up to $total"
fi
if [[ " ${missing[*]} " == *" metrics-server "* ]]; then
  say "[$(elapsed)] go install sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION"
  GOBIN="$tmp" GOFLAGS=-mod=mod go install -v -trimpath -ldflags="-s -w" \
    "sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION" 2>&1 | progress metrics-server
fi
# go build names a binary after its package path's last element before a major version: etcd's is server.
[ ! -e "$tmp/server" ] || mv "$tmp/server" "$tmp/etcd"
for c in "${missing[@]}"; do
  mv "$tmp/$c" "$BIN_DIR/$c"
  say "[$(elapsed)] $c ready"
done
echo "$METRICS_SERVER_VERSION" > "$BIN_DIR/metrics-server.version"
say "done in $(elapsed)"
echo "$BIN_DIR"
