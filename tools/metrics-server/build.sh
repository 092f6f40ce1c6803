#!/usr/bin/env bash
# Builds metrics-server (sigs.k8s.io/metrics-server) from its Go module with the ordinary go tool,
# for the e2e test of `kubectl top` and the sandbox's host cluster. Unlike k8s.io/kubernetes, the
# module has no relative `replace` lines, so `go install module/cmd@version` builds it directly.
#
# Output: $TETHER_METRICS_SERVER_BIN_DIR, default ~/.cache/tether/metrics-server/<version>/, holding
# `metrics-server`. A `.complete` stamp makes a second run a no-op. Progress goes to stderr; the
# bin dir is the only stdout line. With `--cached-only` it never builds: exit 3 if not built yet
# (the sandbox uses metrics-server only when it is already there).
set -euo pipefail

VERSION="${TETHER_METRICS_SERVER_VERSION:-v0.8.0}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/tether/metrics-server"
BIN_DIR="${TETHER_METRICS_SERVER_BIN_DIR:-$CACHE_ROOT/$VERSION}"

say() { printf '[metrics-server-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -f "$BIN_DIR/.complete" && -x "$BIN_DIR/metrics-server" ]]; then
  say "metrics-server $VERSION already in $BIN_DIR"
  echo "$BIN_DIR"
  exit 0
fi
if [[ "${1:-}" == "--cached-only" ]]; then
  say "metrics-server $VERSION is not built yet (run tools/metrics-server/build.sh; a cold build takes minutes)"
  exit 3
fi
command -v go >/dev/null || { say "error: the go tool is not on PATH (Go >= 1.24 is needed to build metrics-server)"; exit 1; }
started=$SECONDS
mkdir -p "$BIN_DIR"
say "building sigs.k8s.io/metrics-server/cmd/metrics-server@$VERSION (a cold build takes minutes on 2 cores)"
CGO_ENABLED=0 GOBIN="$BIN_DIR" go install -trimpath -ldflags="-s -w" "sigs.k8s.io/metrics-server/cmd/metrics-server@$VERSION"
"$BIN_DIR/metrics-server" --help >/dev/null 2>&1 || { say "error: the built metrics-server does not run"; exit 1; }
touch "$BIN_DIR/.complete"
say "built in $((SECONDS - started))s"
echo "$BIN_DIR"
