#!/bin/sh
# A fresh-machine check: a clean Debian system of RELEASE in DIR (debootstrap, minbase),
# a clone of this repository in it, and the README's two commands run there, timed.
#
#   ci/fresh-debian.sh RELEASE DIR [REPO [BRANCH]]     (root only; not part of make test)
#
#   RELEASE  a Debian release the host's mirror carries: bookworm, trixie, sid
#   DIR      where the system goes (kept; made once, then reused: DIR/.ready)
#   REPO     the repository to clone (default: the one this script is in), BRANCH its branch
#
# Environment: FRESH_BACKENDS (default all) is the Makefile's BACKENDS; FRESH_STEPS
# (default "all test": `make`, then `make test`; empty: only make the system) the targets; FFDNN_DEBIAN_MIRROR the
# mirror (default: the host's own apt configuration, read as the harness reads it).
#
# The system reaches what the host reaches and nothing it has set up for itself: the host's
# CA bundle (PIP_CERT points at it), resolv.conf and /etc/apt/apt.conf.d/99* settings are
# carried in; no pip configuration, no pre-downloaded wheel, no host cache. Everything runs
# under `env -i`. Prints one `time:` line per step and, at the end, the disk used by the
# cache and .venv and what each backend was fetched as.
set -eu

die() { echo "error: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: $0 RELEASE DIR [REPO [BRANCH]]"
[ "$(id -u)" = 0 ] || die "run as root (debootstrap and chroot need it)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"

release=$1
dir=$(realpath -m "$2")
here=$(cd "$(dirname "$0")/.." && pwd)
repo=${3:-$here}
branch=${4:-$(git -C "$repo" rev-parse --abbrev-ref HEAD)}
backends=${FRESH_BACKENDS:-all}
steps=${FRESH_STEPS-all test}
packages=python3,python3-venv,python3-dev,gcc,g++,make,git,xz-utils,pkgconf,zlib1g-dev,ca-certificates,libatomic1,binutils,file
mirror=$(cd "$here" && python3 -c 'from harness.obtain import apt; print(apt.debian_mirror())') ||
    die "no Debian mirror (set FFDNN_DEBIAN_MIRROR)"

stamp() { date -u +%H:%M:%S; }
timed() {  # timed NAME COMMAND...: run, print its wall time, keep its status
    name=$1; shift
    t0=$(date +%s)
    echo "== $(stamp) $name: $*" >&2
    rc=0
    "$@" || rc=$?
    echo "time: $name: $(( $(date +%s) - t0 )) s (exit $rc)"
    return $rc
}

if [ ! -e "$dir/.ready" ]; then
    [ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] ||
        die "$dir exists without .ready (a base system that did not finish): remove it first"
    timed debootstrap debootstrap --variant=minbase --include="$packages" \
        "$release" "$dir" "$mirror" >&2
    cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
    cp /etc/resolv.conf "$dir/etc/resolv.conf"
    for f in /etc/apt/apt.conf.d/99*; do [ -f "$f" ] && cp "$f" "$dir/etc/apt/apt.conf.d/"; done
    touch "$dir/.ready"
fi

mounted=""
cleanup() { for m in $mounted; do umount -l "$dir/$m" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
for m in proc sys dev; do
    mountpoint -q "$dir/$m" || { mount --bind "/$m" "$dir/$m"; mounted="$m $mounted"; }
done

clone=/root/ffmpeg-dnn-fault-harness
rm -rf "$dir$clone"
git clone -q --branch "$branch" "$repo" "$dir$clone"
echo "fresh: $release ($(chroot "$dir" python3 --version), $(chroot "$dir" gcc --version | head -1)), $(git -C "$dir$clone" log -1 --format='%h %s')"

inside() {  # a login as a new user would have it: no host environment at all
    env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM=dumb PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
        chroot "$dir" sh -c "cd $clone && $*"
}

status=0
for step in $steps; do
    timed "make $step ($release, BACKENDS=$backends)" inside "make $step BACKENDS=$backends" ||
        status=$?
    [ $status = 0 ] || break
done
echo "disk: $(inside 'du -sh /root/.cache/ffmpeg-dnn-fault-harness .venv 2>/dev/null' | tr '\n' ' ')"
for b in "$dir"/root/.cache/ffmpeg-dnn-fault-harness/backends/*/backend.json; do
    [ -f "$b" ] && echo "backend: $(basename "$(dirname "$b")"): $(python3 -c \
        'import json,sys; print(json.load(open(sys.argv[1]))["versions"])' "$b")"
done
exit $status
