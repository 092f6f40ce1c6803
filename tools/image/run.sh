#!/usr/bin/env bash
# Runs a built image's entrypoint without a container engine, as a Kubernetes pod would run it
# under the chart's security context: the image's root filesystem (buildah mount) read-only, a
# non-root uid/gid, a fresh /tmp, /proc and /dev, the given files mounted read-only at their
# in-cluster paths, only the given environment, the image's working directory. The host's network
# is shared. Used by the image e2e test; podman/crun would do the same where they can set rlimits.
#
# Usage: tools/image/run.sh IMAGE [--user UID:GID] [--mount SRC:DST]... [--env K=V]... [-- ARGS...]
# ARGS replace the image's CMD (as a pod's `args` do). Needs root, buildah, unshare and chroot.
# The process replaces this script (signals reach it); the mounts vanish with it.
set -euo pipefail

image="$1"; shift
user=10001:10001
mounts=()
envs=()
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --user) user="$2"; shift 2 ;;
    --mount) mounts+=("$2"); shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --) shift; args=("$@"); break ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

ctr=$(buildah from --pull-never --quiet "$image")
root=$(buildah mount "$ctr")
config() { buildah inspect --type container --format "$1" "$ctr"; }
workdir=$(config '{{.OCIv1.Config.WorkingDir}}')
mapfile -t entrypoint < <(config '{{range .OCIv1.Config.Entrypoint}}{{println .}}{{end}}' | sed '/^$/d')
if [[ ${#args[@]} -eq 0 ]]; then
  mapfile -t args < <(config '{{range .OCIv1.Config.Cmd}}{{println .}}{{end}}' | sed '/^$/d')
fi
mapfile -t imageEnv < <(config '{{range .OCIv1.Config.Env}}{{println .}}{{end}}' | sed '/^$/d')

# Mount points must exist before the root goes read-only (the container layer is this
# container's own, so creating them changes nothing users run). They are made and resolved inside
# the root: /var/run is an absolute symlink to /run there, which must not lead to the host's /run.
resolved=()
for m in "${mounts[@]}"; do
  dst="${m#*:}"
  chroot "$root" /bin/mkdir -p "$dst"
  resolved+=("${m%%:*}:$(chroot "$root" /usr/bin/realpath -e "$dst")")
done
mkdir -p "$root/tmp" "$root/proc" "$root/dev"

# Remove the working container once the process is gone, whatever ended it.
cleanup() { buildah umount "$ctr" >/dev/null 2>&1 || true; buildah rm "$ctr" >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'kill -TERM "$child" 2>/dev/null || true' TERM INT

export TETHER_RUN_ROOT="$root" TETHER_RUN_USER="$user" TETHER_RUN_WORKDIR="${workdir:-/}"
unshare --mount --propagation private --fork --kill-child=SIGTERM bash -c '
  set -euo pipefail
  root="$TETHER_RUN_ROOT"
  mount --bind "$root" "$root"
  n=$1; shift
  for ((i = 0; i < n; i++)); do
    src="${1%%:*}"; dst="${1#*:}"; shift
    mount --bind "$src" "$root/$dst"
    mount -o remount,bind,ro "$root/$dst"
  done
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o mode=1777,size=64m tmpfs "$root/tmp"
  mount -o remount,bind,ro "$root"
  exec chroot --userspec="$TETHER_RUN_USER" "$root" /usr/bin/env -i -C "$TETHER_RUN_WORKDIR" "$@"
' run "${#resolved[@]}" "${resolved[@]}" "${imageEnv[@]}" "${envs[@]}" "${entrypoint[@]}" "${args[@]}" &
child=$!
wait "$child" || status=$?
wait "$child" 2>/dev/null || true
exit "${status:-0}"
