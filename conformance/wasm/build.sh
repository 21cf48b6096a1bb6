#!/usr/bin/env bash
# Builds the kubelet's decode for one minor (conformance/wasm/v<minor>) into
# .cache/wasm/kubelet-decode-<version>.wasm: GOOS=wasip1, a reactor (c-shared) whose exports
# are in ./abi. Go counts wasip1 as "unix", and two upstream files do not compile there, so
# the files in ./shim are laid over them for this target (-overlay). Go refuses overlays inside
# the module cache, so the module is vendored into .cache/wasm/build-<minor> first.
# Usage: conformance/wasm/build.sh 1.37
set -euo pipefail
minor=${1:?usage: conformance/wasm/build.sh <minor, e.g. 1.37>}
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../.." && pwd)/.cache/wasm
build=$out/build-$minor
mkdir -p "$build"
cp "$here/v$minor"/go.mod "$here/v$minor"/go.sum "$here/v$minor"/*.go "$build/"
cd "$build"
go mod edit -replace "podconfig-exporter/wasm/abi=$here/abi"
export GOOS=wasip1 GOARCH=wasm
go mod vendor
version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
cat >overlay.json <<JSON
{"Replace": {
  "$build/vendor/k8s.io/mount-utils/mount_helper_unix.go": "$here/shim/mount_helper_wasip1.go",
  "$build/vendor/k8s.io/kubernetes/pkg/securitycontext/util_wasip1.go": "$here/shim/securitycontext_wasip1.go"
}}
JSON
wasm=$out/kubelet-decode-${version#v}.wasm
nice -n 10 go build -mod=vendor -buildmode=c-shared -trimpath -overlay overlay.json -o "$wasm" .
echo "$wasm"
