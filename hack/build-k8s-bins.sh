#!/usr/bin/env bash
# Builds the local control plane's binaries (etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager from k8s.io/kubernetes, kwok and metrics-server) through the Go module
# proxy into a versioned cache folder under $HOME. Idempotent: instant when everything is present.
#
#   hack/build-k8s-bins.sh          -> prints the folder holding the binaries
#
# A cold build takes about 15 minutes on 2 cores (3.6 GB of Go build cache, 3 GB peak RAM).
# The wrapper module in hack/k8s-bins pins every k8s.io staging module to the release, because
# k8s.io/kubernetes points its staging modules at local folders that Go ignores in dependencies.
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
say "a cold build takes about 15 minutes on 2 cores; later runs are instant"
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start ))s"; }

minor=$(echo "$K8S_VERSION" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"

# Build into a temporary name and rename, so an interrupted build never leaves a half binary.
build() { # build NAME PACKAGE
  local name=$1 pkg=$2
  say "[$(elapsed)] go build $pkg"
  (cd "$HERE/k8s-bins" && go build -trimpath -ldflags="$ldflags" -o "$BIN_DIR/.$name.tmp" "$pkg")
  mv "$BIN_DIR/.$name.tmp" "$BIN_DIR/$name"
  say "[$(elapsed)] $name ready"
}

# A program with a module of its own (its own dependency versions) is installed as released.
install() { # install NAME PACKAGE@VERSION
  local name=$1 pkg=$2 tmp
  say "[$(elapsed)] go install $pkg"
  tmp=$(mktemp -d)
  GOBIN="$tmp" GOFLAGS=-mod=mod go install -trimpath -ldflags="-s -w" "$pkg"
  mv "$tmp/$name" "$BIN_DIR/$name"; rmdir "$tmp"
  say "[$(elapsed)] $name ready"
}

for c in "${missing[@]}"; do
  case $c in
    etcd) build etcd go.etcd.io/etcd/server/v3 ;;
    kube-apiserver|kube-scheduler|kube-controller-manager) build "$c" "k8s.io/kubernetes/cmd/$c" ;;
    kwok) install kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" ;;
    metrics-server)
      install metrics-server "sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION"
      echo "$METRICS_SERVER_VERSION" > "$BIN_DIR/metrics-server.version" ;;
  esac
done
say "done in $(elapsed)"
echo "$BIN_DIR"
