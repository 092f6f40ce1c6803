#!/usr/bin/env bash
# Builds the control-plane binaries Tether's tests and sandbox run: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kubectl, from Go modules with the ordinary go tool.
#
# Why wrapper modules: k8s.io/kubernetes (and etcd's server module) carry relative `replace`
# lines, so `go install pkg@version` refuses them. A wrapper module that requires
# k8s.io/kubernetes and pins every staging module at the matching v0.x tag builds fine.
# The staging list is derived from the downloaded go.mod, never hard-coded (1.36 added two).
#
# Output: $TETHER_KUBE_BIN_DIR, default ~/.cache/tether/kube/<version>/. A `.complete` stamp
# makes a second run a no-op. Progress lines go to stderr; the bin dir is the only stdout line.
set -euo pipefail

KUBE_VERSION="${TETHER_KUBE_VERSION:-v1.36.3}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/tether/kube"
BIN_DIR="${TETHER_KUBE_BIN_DIR:-$CACHE_ROOT/$KUBE_VERSION}"
WORK_DIR="$CACHE_ROOT/src/$KUBE_VERSION"
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl)

say() { printf '[kube-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -f "$BIN_DIR/.complete" ]]; then
  say "binaries for $KUBE_VERSION already in $BIN_DIR"
  echo "$BIN_DIR"
  exit 0
fi
if [[ -n "${TETHER_KUBE_BIN_DIR:-}" ]]; then
  missing=()
  for b in "${BINARIES[@]}"; do [[ -x "$BIN_DIR/$b" ]] || missing+=("$b"); done
  if [[ ${#missing[@]} -eq 0 ]]; then
    say "using the binaries in TETHER_KUBE_BIN_DIR=$BIN_DIR"
    echo "$BIN_DIR"
    exit 0
  fi
  say "TETHER_KUBE_BIN_DIR=$BIN_DIR lacks: ${missing[*]}; building them there"
fi

command -v go >/dev/null || { say "error: the go tool is not on PATH (Go >= 1.26 is needed to build the control plane)"; exit 1; }
started=$SECONDS
mkdir -p "$BIN_DIR" "$WORK_DIR/k8s" "$WORK_DIR/etcd"
export GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0

# Runs `go build -v` (one line per compiled package) and turns it into progress lines every 15 s.
# Compiler errors pass through. Returns go build's exit code.
build_with_progress() {
  local label=$1 total=$2; shift 2
  local count=0 last=$SECONDS rc=1 line
  say "$label: compiling up to $total packages (a cold build takes many minutes on 2 cores)"
  while IFS= read -r line; do
    case "$line" in
      __exit:*) rc=${line#__exit:} ;;
      *.go:*|"#"*|*": "*) printf '%s\n' "$line" >&2 ;;
      *) count=$((count + 1)) ;;
    esac
    if (( SECONDS - last >= 15 )); then
      last=$SECONDS
      say "$label: $count/$total packages compiled, $((SECONDS - started))s elapsed"
    fi
  done < <(go build -v "$@" 2>&1; echo "__exit:$?")
  say "$label: go build finished (exit $rc) after $((SECONDS - started))s"
  return "$rc"
}

# --- Kubernetes ---------------------------------------------------------------------------
say "resolving k8s.io/kubernetes@$KUBE_VERSION through the module proxy"
upstream_mod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[[ -f "$upstream_mod" ]] || { say "error: could not download k8s.io/kubernetes@$KUBE_VERSION"; exit 1; }
staging_version="v0.${KUBE_VERSION#v1.}"
minor=$(cut -d. -f2 <<<"$KUBE_VERSION")

cd "$WORK_DIR/k8s"
{
  echo "module tether.local/kubebins"
  echo
  grep -E '^(go|godebug) ' "$upstream_mod"
  echo
  echo "require k8s.io/kubernetes $KUBE_VERSION"
} > go.mod
staging=$(sed -n 's#^[[:space:]]*\(k8s.io/[A-Za-z0-9._-]*\) => \./staging/.*#\1#p' "$upstream_mod")
n=0
for m in $staging; do go mod edit -replace="$m=$m@$staging_version"; n=$((n + 1)); done
say "wrapper module pins $n staging modules at $staging_version"
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
say "downloading modules (go mod tidy)"
go mod tidy >&2
pkgs=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
      k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
total=$(go list -deps "${pkgs[@]}" | wc -l)
ldflags="-s -w"
build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=$build_date"
done
build_with_progress kubernetes "$total" -trimpath -ldflags "$ldflags" -o "$BIN_DIR/" "${pkgs[@]}"

# --- etcd, at the version k8s.io/kubernetes pins ------------------------------------------
etcd_version=$(sed -n 's#^[[:space:]]*go.etcd.io/etcd/client/v3 \(v[0-9.]*\).*#\1#p' "$upstream_mod" | head -n1)
[[ -n "$etcd_version" ]] || { say "error: no etcd version in k8s.io/kubernetes's go.mod"; exit 1; }
cd "$WORK_DIR/etcd"
printf 'module tether.local/etcdbin\n\n%s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' \
  "$(grep -E '^go ' "$upstream_mod")" "$etcd_version" > go.mod
cat > main.go <<'GO'
// Command etcd runs etcd's own entry point; this module exists because etcd's server module
// has relative replace lines that `go install` refuses.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
say "etcd $etcd_version: downloading modules"
go mod tidy >&2
total=$(go list -deps . | wc -l)
build_with_progress etcd "$total" -trimpath -ldflags "-s -w" -o "$BIN_DIR/etcd" .

for b in "${BINARIES[@]}"; do
  [[ -x "$BIN_DIR/$b" ]] || { say "error: $b was not built (see the compiler output above)"; exit 1; }
done
"$BIN_DIR/kube-apiserver" --version >&2
"$BIN_DIR/etcd" --version | head -n1 >&2
printf '%s\netcd %s\nbuilt in %ss\n' "$KUBE_VERSION" "$etcd_version" "$((SECONDS - started))" > "$BIN_DIR/.complete"
say "done in $((SECONDS - started))s: $BIN_DIR"
echo "$BIN_DIR"
