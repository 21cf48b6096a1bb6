#!/usr/bin/env bash
# The image's root filesystem, distroless-style: Node and nothing else it does not need.
#   bash scripts/image/rootfs.sh OUT_DIR NODE_VERSION
# for this machine's architecture, from this machine's apt sources (Debian; run apt-get update
# first) and npm:
#   - /usr/local/bin/node: the official binary of the npm package node-linux-<arch>@NODE_VERSION,
#     without its symbol tables (strip: 150 -> 117 MB for 26.12.1 on amd64);
#   - the shared libraries it links, found as the dynamic loader finds them: its interpreter and
#     its DT_NEEDED entries, recursively, copied from Debian's libc6, libgcc-s1, libstdc++6 and
#     libatomic1 (nothing else of those packages: no gconv, no locales, no binaries);
#   - /etc/ssl/certs/ca-certificates.crt: Mozilla's CAs from Debian's ca-certificates, as its
#     update-ca-certificates joins them with the default configuration (every CA enabled);
#   - /usr/share/zoneinfo from Debian's tzdata;
#   - /etc/passwd and /etc/group with root and node (1000, as the official node images), /tmp;
#   - each package's copyright file, and its control data in /var/lib/dpkg/status.d/ as
#     distroless writes it, so an SBOM scanner lists the Debian packages the image holds.
# No shell, no package manager, no apt or dpkg database. Used by the Dockerfile's rootfs stage
# and by scripts/image-smoke.sh.
set -euo pipefail
out=$1
node_version=$2
packages=(libc6 libgcc-s1 libstdc++6 libatomic1 ca-certificates tzdata)

deb_arch=$(dpkg --print-architecture)
case $deb_arch in
amd64) node_arch=x64 ;;
arm64) node_arch=arm64 ;;
*) echo "rootfs.sh: no Node binary for $deb_arch" >&2 && exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/x" "$out"

# The gcc runtime libraries' doc directories point to gcc-<major>-base's: its copyright too.
gcc_base=$(apt-cache depends libgcc-s1 | sed -n 's/^ *Depends: \(gcc-[0-9]*-base\)$/\1/p' | head -1)
(cd "$work/debs" && apt-get download -q -o APT::Sandbox::User=root "${packages[@]}" $gcc_base >/dev/null)
mkdir -p "$out/var/lib/dpkg/status.d"
for deb in "$work"/debs/*.deb; do
  name=$(dpkg-deb -f "$deb" Package)
  dpkg-deb -x "$deb" "$work/x"
  dpkg-deb -f "$deb" >"$out/var/lib/dpkg/status.d/$name"
done
for deb in "$work"/debs/*.deb; do
  name=$(dpkg-deb -f "$deb" Package)
  install -D -m 0644 "$(readlink -f "$work/x/usr/share/doc/$name")/copyright" "$out/usr/share/doc/$name/copyright"
done

(cd "$work" && npm pack --silent "node-linux-$node_arch@$node_version" >/dev/null)
tar -xzf "$work/node-linux-$node_arch-$node_version.tgz" -C "$work" package/bin/node
install -D -m 0755 "$work/package/bin/node" "$out/usr/local/bin/node"
strip "$out/usr/local/bin/node"

# The loader and the libraries, at the paths the packages give them (dereferenced: a symlink
# such as libstdc++.so.6 becomes the file it names).
copy_from_packages() { # copy_from_packages PATH-IN-ROOTFS
  [[ -e $out$1 ]] && return 0
  [[ -e $work/x$1 ]] || {
    echo "rootfs.sh: $1 is in none of ${packages[*]}" >&2
    exit 1
  }
  install -D -m 0755 "$(readlink -f "$work/x$1")" "$out$1"
}
interpreter=$(readelf -l "$out/usr/local/bin/node" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
copy_from_packages "$interpreter"
queue=("$out/usr/local/bin/node")
while ((${#queue[@]} > 0)); do
  file=${queue[0]}
  queue=("${queue[@]:1}")
  for lib in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    found=$(cd "$work/x" && find lib usr/lib -name "$lib" \( -type f -o -type l \) | head -1)
    [[ -n $found ]] || {
      echo "rootfs.sh: $lib (needed by ${file#"$out"}) is in none of ${packages[*]}" >&2
      exit 1
    }
    if [[ ! -e $out/$found ]]; then
      copy_from_packages "/$found"
      queue+=("$out/$found")
    fi
  done
done

mkdir -p "$out/etc/ssl/certs"
cat "$work"/x/usr/share/ca-certificates/mozilla/*.crt >"$out/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$out/usr/share"
cp -a "$work/x/usr/share/zoneinfo" "$out/usr/share/zoneinfo"

printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'node:x:1000:1000:node:/home/node:/sbin/nologin' >"$out/etc/passwd"
printf '%s\n' 'root:x:0:' 'node:x:1000:' >"$out/etc/group"
mkdir -p "$out/root" "$out/home/node" "$out/tmp"
chmod 0700 "$out/root"
chmod 1777 "$out/tmp"
chown 1000:1000 "$out/home/node"
