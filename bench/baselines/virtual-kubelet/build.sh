#!/usr/bin/env bash
# Builds the virtual-kubelet baseline (this directory's Go program on virtual-kubelet's node
# library) for `npm run bench:compare`, with the ordinary go tool and the module proxy.
# Output: ~/.cache/tether/vk-baseline/<hash of the sources>/vk-baseline; a second run with the
# same sources is a no-op. Progress goes to stderr; the binary's path is the only stdout line.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hash=$(cat "$here"/go.mod "$here"/go.sum "$here"/*.go | sha256sum | cut -c1-16)
out_dir="${XDG_CACHE_HOME:-$HOME/.cache}/tether/vk-baseline/$hash"
bin="$out_dir/vk-baseline"
say() { printf '[vk-baseline %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -x "$bin" ]]; then
  say "already built: $bin"
  echo "$bin"
  exit 0
fi
command -v go >/dev/null || { say "error: the go tool is not on PATH (Go >= 1.26 builds virtual-kubelet v1.14.1)"; exit 1; }
mkdir -p "$out_dir"
started=$SECONDS
say "building virtual-kubelet $(sed -n 's#.*github.com/virtual-kubelet/virtual-kubelet \(v[0-9.]*\).*#\1#p' "$here/go.mod" | head -n1) baseline (first build: a few minutes on 2 cores)"
cd "$here"
CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=mod" go build -trimpath -ldflags '-s -w' -o "$bin.tmp" .
mv "$bin.tmp" "$bin"
say "done in $((SECONDS - started))s: $bin"
echo "$bin"
