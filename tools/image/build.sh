#!/usr/bin/env bash
# Builds Tether's image from the Dockerfile with buildah, daemonless (no Docker engine needed).
#
# Where containers can run `npm ci` (a registry they trust), plain `buildah bud .` or
# `docker build .` is all it takes. On machines whose registry a fresh container does not trust
# (these CI machines: npm is reached through a CA only the host trusts), the build stage, the one
# that needs the network, is replaced by what the host builds, as a buildah named build context:
# the compiled JavaScript and its bundle (tools/bundle/bundle.mjs). The runtime stage, the one
# users ship, is built unchanged from the same Dockerfile.
#
# Usage: tools/image/build.sh [TAG]   (default tether:<package.json version>)
# Needs root and buildah; builds the base stand-in first when no registry is reachable
# (tools/image/base.sh). Output: the image name, on stdout. Progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { printf '[image-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

version=$(node -p "require('./package.json').version")
tag="${1:-localhost/tether:$version}"
command -v buildah >/dev/null || { say "error: buildah is not installed (apt-get install buildah)"; exit 1; }
bash tools/image/base.sh >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS
say "compiling TypeScript and bundling the agent (the build stage's output)"
npx tsc -p tsconfig.build.json --outDir "$work/build/app/dist" >&2
node tools/bundle/bundle.mjs "$work/build/app/dist" >&2

# The image this tag named before, removed after the build so that rebuilds do not pile up.
previous=$(buildah inspect --type image --format '{{.FromImageID}}' "$tag" 2>/dev/null || true)
say "buildah bud (runtime stage from the Dockerfile, --pull=never)"
buildah bud --quiet --isolation=chroot --pull=never --layers=false --format docker \
  --build-context build="$work/build" \
  -f Dockerfile -t "$tag" . >&2
current=$(buildah inspect --type image --format '{{.FromImageID}}' "$tag")
if [[ -n "$previous" && "$previous" != "$current" ]]; then buildah rmi "$previous" >/dev/null 2>&1 || true; fi
say "built $tag in $((SECONDS - started))s"
echo "$tag"
