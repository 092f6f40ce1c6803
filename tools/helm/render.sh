#!/usr/bin/env bash
# Renders the chart (deploy/helm/tether, default values) into deploy/manifests/tether.yaml for
# users without Helm: a Namespace, then everything the chart installs. The chart test checks that
# the file is up to date. Usage: bash tools/helm/render.sh [namespace]  (default tether-system)
set -euo pipefail
cd "$(dirname "$0")/../.."
NAMESPACE="${1:-tether-system}"
HELM="$(bash tools/helm/build.sh)/helm"
{
  echo "# Rendered from deploy/helm/tether by tools/helm/render.sh; do not edit (change the chart)."
  echo "# Install: kubectl apply -f deploy/manifests/tether.yaml (see docs/deployment.md)."
  echo "apiVersion: v1"
  echo "kind: Namespace"
  echo "metadata:"
  echo "  name: $NAMESPACE"
  "$HELM" template tether deploy/helm/tether --namespace "$NAMESPACE"
} > deploy/manifests/tether.yaml
echo "deploy/manifests/tether.yaml" >&2
