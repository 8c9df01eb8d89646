#!/bin/sh
# Check the build tools the trees need; install the missing ones with apt-get when root.
set -eu
missing=""
for tool in cc:gcc c++:g++ make:make git:git tar:tar xz:xz-utils pkg-config:pkgconf \
            dpkg-deb:dpkg; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
# libraries, not commands: the TensorFlow backend links -lz
if command -v cc >/dev/null 2>&1; then
    case "$(cc -print-file-name=libz.so)" in /*) ;; *) missing="$missing zlib1g-dev";; esac
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "error: missing build tools:$missing (apt-get install$missing)" >&2
    exit 1
fi
echo "deps: apt-get install$missing"
apt-get update -qq && apt-get install -y -qq $missing
