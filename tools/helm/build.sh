#!/usr/bin/env bash
# Builds helm from its Go module with the ordinary go tool (helm's go.mod has no `replace` lines,
# so `go install helm.sh/helm/v3/cmd/helm@<version>` works as it is; no wrapper module needed).
# Used by the chart test (test/deploy/chart.test.ts) and tools/helm/render.sh.
#
# Output: $TETHER_HELM_BIN_DIR, default ~/.cache/tether/helm/<version>/, holding `helm`. A
# `.complete` stamp makes a second run a no-op. Progress goes to stderr; the bin dir is the only
# stdout line. A cold build takes a few minutes on 2 cores.
set -euo pipefail

HELM_VERSION="${TETHER_HELM_VERSION:-v3.22.0}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/tether/helm"
BIN_DIR="${TETHER_HELM_BIN_DIR:-$CACHE_ROOT/$HELM_VERSION}"

say() { printf '[helm-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -f "$BIN_DIR/.complete" && -x "$BIN_DIR/helm" ]]; then
  say "helm $HELM_VERSION already in $BIN_DIR"
  echo "$BIN_DIR"
  exit 0
fi
command -v go >/dev/null || { say "error: the go tool is not on PATH"; exit 1; }
mkdir -p "$BIN_DIR"
started=$SECONDS
say "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION (a cold build takes a few minutes)"
GOBIN="$BIN_DIR" CGO_ENABLED=0 go install \
  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
  "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
"$BIN_DIR/helm" version --short >&2
touch "$BIN_DIR/.complete"
say "built in $((SECONDS - started))s"
echo "$BIN_DIR"
