#!/usr/bin/env bash
# The image, built and run for real. No registry image can be pulled here and a container cannot
# reach the package registries, so the Dockerfile's build stages cannot run; instead:
#   1. the Dockerfile's base stage: the root filesystem of scripts/image/rootfs.sh (as its rootfs
#      stage runs it), with Node at the version of the Dockerfile's NODE_IMAGE
#      (node:<version>-<suite>-slim) and Debian <suite>'s packages, which must be this machine's;
#   2. the bundle built outside the container (scripts/bundle.ts, the revision baked in), copied
#      by the Dockerfile's own runtime stage (its last stage, taken from the file, with the base
#      above and COPY --from=STAGE turned into plain COPY), built with --build-arg REVISION;
#      the image must weigh at most 160 MB (MaxImageBytes);
#   3. run the way the DaemonSet runs it (deploy/rendered/kubeadm.yaml: its args and env, a
#      read-only root filesystem, every capability dropped, no privilege escalation, /tmp as a
#      small writable mount, the static pod directory and the kubelet config mounted read-only,
#      its own network namespace), once as uid 0 and once as uid 1000; each run checks /healthz,
#      /readyz, /metrics (the revision in podconfig_build_info, the pods from the node's
#      directory), the image's HEALTHCHECK, and that SIGTERM ends it with status 0.
# With --save FILE REF the built image is also tagged REF and saved to FILE (docker save), for a
# node's containerd to import (npm run e2e:cluster).
# Needs root (dockerd, chroot, nsenter), apt sources and npm for the base. Starts its own dockerd on a private socket and
# data root, and stops it on exit. Outside CI the base rootfs is cached in
# ${PODCONFIG_SMOKE_CACHE:-~/.cache/podconfig-exporter}; CI (CI=true) always assembles it anew.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
save_file="" save_ref=""
if [[ ${1:-} == --save ]]; then
  [[ $# == 3 ]] || { echo "usage: $0 [--save FILE REF]" >&2; exit 2; }
  save_file=$(realpath -m "$2") save_ref=$3
fi

log() { printf '[image-smoke %s] %s\n' "$(date -u +%T)" "$*"; }
fail() {
  printf '[image-smoke] FAIL: %s\n' "$*" >&2
  exit 1
}

# --- what the Dockerfile pins ---------------------------------------------------------------
node_image=$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)
[[ $node_image =~ ^node:([0-9]+\.[0-9]+\.[0-9]+)-([a-z]+)-slim$ ]] ||
  fail "Dockerfile: NODE_IMAGE '$node_image' is not node:<x.y.z>-<suite>-slim"
node_version=${BASH_REMATCH[1]}
suite=${BASH_REMATCH[2]}
revision=$(git rev-parse HEAD)
log "Dockerfile base $node_image: Debian $suite + Node $node_version; revision $revision"
# shellcheck disable=SC1091
host_suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
[[ $host_suite == "$suite" ]] || fail "the base takes Debian's packages from this machine's apt sources ($host_suite), not $suite"
max_image_bytes=160000000

work=$(mktemp -d /tmp/image-smoke.XXXXXX)
dockerd_pid=""
cleanup() {
  set +e
  if [[ -n $dockerd_pid ]]; then
    docker ps -aq | xargs -r docker rm -f >/dev/null
    kill "$dockerd_pid"
    wait "$dockerd_pid"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# --- dockerd, private to this run -------------------------------------------------------------
# overlay2 where the kernel and the filesystem under /tmp allow it (it shares layers; vfs copies
# the whole image for each build step, minutes per step on a loaded 2-core machine), else vfs.
export DOCKER_HOST="unix://$work/docker.sock"
start_dockerd() {
  rm -rf "$work/data" "$work/exec"
  dockerd --storage-driver="$1" --iptables=false --ip-masq=false --bridge=none \
    --data-root "$work/data" --exec-root "$work/exec" --pidfile "$work/dockerd.pid" \
    -H "$DOCKER_HOST" >"$work/dockerd-$1.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 60); do
    docker version >/dev/null 2>&1 && return 0
    if ! kill -0 "$dockerd_pid" 2>/dev/null; then
      wait "$dockerd_pid" || true
      dockerd_pid=""
      return 1
    fi
    sleep 1
  done
  kill "$dockerd_pid" && wait "$dockerd_pid"
  dockerd_pid=""
  return 1
}
if ! start_dockerd overlay2; then
  log "dockerd with overlay2 failed ($(grep -m1 -i 'level=error\|level=fatal' "$work/dockerd-overlay2.log" || true)); using vfs"
  start_dockerd vfs || {
    cat "$work/dockerd-vfs.log" >&2
    fail "dockerd did not start"
  }
fi
docker version --format 'dockerd {{.Server.Version}}' | sed "s/$/, storage $(docker info -f '{{.Driver}}')/"

# --- 1. the base ------------------------------------------------------------------------------
# Cached under the script's own hash: a changed rootfs.sh assembles a new one.
rootfs_hash=$(sha256sum scripts/image/rootfs.sh | cut -c1-12)
base_tag="podconfig-smoke-base:$suite-node$node_version-$rootfs_hash"
cache_dir=${PODCONFIG_SMOKE_CACHE:-$HOME/.cache/podconfig-exporter}
base_tar="$cache_dir/base-$suite-node$node_version-$rootfs_hash.tar"
[[ ${CI:-} == true ]] && base_tar="$work/base.tar"
if [[ ! -s $base_tar ]]; then
  started=$SECONDS
  rootfs="$work/rootfs"
  log "scripts/image/rootfs.sh: Node $node_version from npm, Debian $suite's libraries, CA certificates, time zones"
  bash scripts/image/rootfs.sh "$rootfs" "$node_version"
  [[ $(chroot "$rootfs" /usr/local/bin/node --version) == "v$node_version" ]] || fail "node in the base"
  mkdir -p "$(dirname "$base_tar")"
  tar --numeric-owner -C "$rootfs" -cf "$base_tar.part" . && mv "$base_tar.part" "$base_tar"
  rm -rf "$rootfs"
  log "base assembled in $((SECONDS - started)) s"
else
  log "base rootfs from the cache: $base_tar"
fi
# The Dockerfile's base stage sets PATH.
base_path=$(sed -n '/^FROM scratch AS base$/,/^FROM /s/^ENV PATH=//p' Dockerfile)
[[ -n $base_path ]] || fail "Dockerfile: no 'FROM scratch AS base' stage with ENV PATH"
docker import --change "ENV PATH=$base_path" "$base_tar" "$base_tag" >/dev/null

# --- 2. the runtime image, by the Dockerfile's last stage ---------------------------------------
started=$SECONDS
ctx="$work/context"
mkdir -p "$ctx"
BUILD_REVISION=$revision npx tsx scripts/bundle.ts "$ctx/bundle" >/dev/null
cp -r examples "$ctx/"
last_from=$(grep -n '^FROM ' Dockerfile | tail -1 | cut -d: -f1)
{
  echo "FROM $base_tag"
  tail -n +"$((last_from + 1))" Dockerfile |
    sed -E 's#^COPY --from=[^ ]+ /app/([^ ]+) #COPY \1 #'
} >"$ctx/Dockerfile"
! grep -q -- '--from=' "$ctx/Dockerfile" || fail "runtime stage has a COPY --from this script cannot map"
# The legacy builder: BuildKit would fetch the "# syntax=" frontend from a registry.
DOCKER_BUILDKIT=0 docker build -q --build-arg "REVISION=$revision" -t podconfig-exporter:smoke "$ctx" >/dev/null
log "image built in $((SECONDS - started)) s"
bytes() { docker image inspect -f '{{.Size}}' "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
image_bytes=$(bytes podconfig-exporter:smoke)
base_bytes=$(bytes "$base_tag")
log "image size: podconfig-exporter:smoke $(mb "$image_bytes") (base $(mb "$base_bytes"), app layers $(mb $((image_bytes - base_bytes))))"
((image_bytes <= max_image_bytes)) || fail "the image is $(mb "$image_bytes"), more than $(mb "$max_image_bytes")"
if [[ -n $save_file ]]; then
  docker tag podconfig-exporter:smoke "$save_ref"
  mkdir -p "$(dirname "$save_file")"
  docker save -o "$save_file" "$save_ref"
  log "saved as $save_ref in $save_file"
fi

# --- 3. run it as the DaemonSet does ------------------------------------------------------------
# The kubeadm overlay's container: its args, and env with the downward API filled in.
mapfile -t args < <(node --input-type=module -e '
  import { readFileSync } from "node:fs";
  import { parseAllDocuments } from "yaml";
  const ds = parseAllDocuments(readFileSync("deploy/rendered/kubeadm.yaml", "utf8"))
    .map((d) => d.toJS()).find((m) => m?.kind === "DaemonSet");
  const c = ds.spec.template.spec.containers[0];
  for (const a of c.args ?? []) console.log(a);
  for (const e of c.env ?? []) console.log(`--env=${e.name}=${e.value ?? "smoke-node"}`);
  for (const m of c.volumeMounts) console.log(`--mount=${m.mountPath}`);
')
container_args=() env_args=() mounts=()
for a in "${args[@]}"; do
  case $a in
  --env=*) env_args+=(-e "${a#--env=}") ;;
  --mount=*) mounts+=("${a#--mount=}") ;;
  *) container_args+=("$a") ;;
  esac
done
log "DaemonSet args: ${container_args[*]}; mounts: ${mounts[*]}"

# The node: kubeadm's layout, its static pod manifests root-owned 0600 as kubeadm writes them.
node_root="$work/node"
mkdir -p "$node_root/etc/kubernetes/manifests" "$node_root/var/lib/kubelet"
install -m 0600 -o 0 -g 0 examples/manifests/*.yaml "$node_root/etc/kubernetes/manifests/"
printf '%s\n' 'apiVersion: kubelet.config.k8s.io/v1beta1' 'kind: KubeletConfiguration' \
  'staticPodPath: /etc/kubernetes/manifests' >"$node_root/var/lib/kubelet/config.yaml"
# The kubelet's own self-signed serving certificate, as a default kubeadm node has it: the
# kubeadm overlay mounts it as the cross-check's trust anchor (kubelet-tls-kubeadm component).
mkdir -p "$node_root/var/lib/kubelet/pki"
openssl req -x509 -newkey rsa:2048 -nodes -keyout /dev/null -days 1 -subj "/CN=smoke-node@1" \
  -addext "subjectAltName=DNS:smoke-node" -out "$node_root/var/lib/kubelet/pki/kubelet.crt" 2>/dev/null
chmod 0644 "$node_root/var/lib/kubelet/pki/kubelet.crt"
static_pods=$(find examples/manifests -name '*.yaml' | wc -l)
volume_args=()
for m in "${mounts[@]}"; do
  if [[ $m == /tmp ]]; then
    volume_args+=(--tmpfs /tmp:size=16m)
  else
    [[ -e $node_root$m ]] || fail "the DaemonSet mounts $m, which the smoke node lacks"
    volume_args+=(-v "$node_root$m:$m:ro")
  fi
done

probe() { # probe CONTAINER PATH: GET from outside the container, in its network namespace
  nsenter -t "$(docker inspect -f '{{.State.Pid}}' "$1")" -n \
    curl -s -o "$work/body" -w '%{http_code}' --max-time 5 "http://127.0.0.1:9847$2" || true
}

run_as() {
  local uid=$1 name="smoke-uid$1" started status code pid metrics
  log "run as uid $uid"
  docker run -d --name "$name" --user "$uid:$uid" --network none --read-only \
    --cap-drop ALL --security-opt no-new-privileges "${volume_args[@]}" "${env_args[@]}" \
    podconfig-exporter:smoke "${container_args[@]}" >/dev/null
  pid=$(docker inspect -f '{{.State.Pid}}' "$name")
  grep -q '^CapEff:[[:space:]]*0000000000000000$' "/proc/$pid/status" || fail "uid $uid: capabilities left"
  [[ $(docker inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$name") == true ]] || fail "root fs writable"
  for _ in $(seq 60); do
    [[ $(probe "$name" /readyz) == 200 ]] && break
    [[ $(docker inspect -f '{{.State.Running}}' "$name") == true ]] || {
      docker logs "$name" >&2
      fail "uid $uid: the exporter exited"
    }
    sleep 1
  done
  code=$(probe "$name" /readyz)
  [[ $code == 200 ]] || fail "uid $uid: /readyz $code: $(cat "$work/body")"
  code=$(probe "$name" /healthz)
  [[ $code == 200 ]] || fail "uid $uid: /healthz $code"
  code=$(probe "$name" /metrics)
  [[ $code == 200 ]] || fail "uid $uid: /metrics $code"
  metrics=$(cat "$work/body")
  grep -q "^podconfig_build_info{.*revision=\"$revision\"" <<<"$metrics" ||
    fail "uid $uid: podconfig_build_info has not revision $revision: $(grep build_info <<<"$metrics")"
  grep -q '^podconfig_source_ready{source="file"} 1' <<<"$metrics" || fail "uid $uid: file source not ready"
  if [[ $uid == 0 ]]; then
    # root reads kubeadm's 0600 manifests with every capability dropped: it owns them.
    grep -q "^podconfig_source_pods{source=\"file\"} $static_pods\$" <<<"$metrics" ||
      fail "uid 0: not $static_pods static pods: $(grep source_pods <<<"$metrics")"
  else
    # Another uid cannot read them: each is skipped and counted, the source is still ready.
    grep -q '^podconfig_source_errors_total{source="file",reason="read"} [1-9]' <<<"$metrics" ||
      fail "uid $uid: unreadable manifests not counted: $(grep source_errors <<<"$metrics")"
  fi
  for _ in $(seq 60); do
    status=$(docker inspect -f '{{.State.Health.Status}}' "$name")
    [[ $status == healthy || $status == unhealthy ]] && break
    sleep 1
  done
  [[ $status == healthy ]] || fail "uid $uid: HEALTHCHECK says '$status'"
  started=$SECONDS
  docker kill --signal TERM "$name" >/dev/null
  code=$(timeout 30 docker wait "$name") || fail "uid $uid: still running 30 s after SIGTERM"
  [[ $code == 0 ]] || {
    docker logs "$name" >&2
    fail "uid $uid: exit status $code after SIGTERM"
  }
  docker logs "$name" 2>&1 | grep -q '^time=.* level=info msg=Stopped$' || fail "uid $uid: no clean stop in the log"
  log "uid $uid: /healthz 200, /readyz 200, revision in podconfig_build_info, HEALTHCHECK healthy," \
    "SIGTERM -> exit 0 in $((SECONDS - started)) s"
  docker rm "$name" >/dev/null
}
runs=(0 1000)
for uid in "${runs[@]}"; do run_as "$uid"; done
log "passed in $SECONDS s"
# The plain closing line CI reads: each run above is one check of the image.
echo "image-smoke: ${#runs[@]} passed, 0 failed"
