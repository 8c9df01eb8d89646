#!/bin/sh
# Check the build tools the trees need; install the missing ones with apt-get when root.
#   sh builds/deps.sh [test]     test (`make test`): also the browser the tests render with
# Environment: BACKENDS (the Makefile's), PY (the virtualenv's python).
set -eu
missing=""
for tool in cc:gcc c++:g++ make:make git:git tar:tar xz:xz-utils pkg-config:pkgconf \
            dpkg-deb:dpkg; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
# the registry's questions need only the standard library: the system python will do
py=${PY:-python3}
[ -x "$py" ] || py=python3
# the Python headers each tree's cffi module compiles against (Debian's python3 has them
# in python3-dev)
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null) || inc=""
[ -n "$inc" ] && [ -f "$inc/Python.h" ] || missing="$missing python3-dev"
# libraries, not commands: what the backends' links need from the system (each backend
# module's libs: TensorFlow's -lz -latomic)
if command -v cc >/dev/null 2>&1; then
    libs=$("$py" -m harness.obtain.backends libs "${BACKENDS:-all}") || exit 2
    while read -r lib package; do
        [ -n "$lib" ] || continue
        case "$(cc -print-file-name="lib$lib.so")" in /*) ;; *) missing="$missing $package";; esac
    done <<EOF
$libs
EOF
fi
# LibTorch (BACKENDS all or naming torch): the CPU build only. harness/obtain/libtorch.py says
# which way it comes; when none does, or only the CPU part of pip's CUDA wheel (about 540
# MB), the distribution's libtorch-dev is taken first where it is new enough.
case ",${BACKENDS:-}," in
*,all,*|*,torch,*)
    route=$("$py" -m harness.obtain.libtorch) || exit 2
    case "$route" in
    none*|cpu-part*)
        candidate=""
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq
            candidate=$(apt-cache policy libtorch-dev | awk '/Candidate:/ {print $2}')
        fi
        floor=$("$py" -c 'from harness.obtain.libtorch import SYSTEM_MIN; print(SYSTEM_MIN)')
        if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] &&
           dpkg --compare-versions "${candidate#*:}" ge "$floor"; then
            echo "deps: LibTorch: the distribution's libtorch-dev $candidate, a CPU build (pip's way: ${route#* })"
            missing="$missing libtorch-dev"
        elif [ "${route%% *}" = cpu-part ]; then
            echo "deps: LibTorch: the CPU libraries of pip's CUDA wheel (${route#cpu-part })"
        else
            case "$route" in *"apt has"*) ;; *)
                [ -z "$candidate" ] || [ "$candidate" = "(none)" ] ||
                    route="$route; apt has libtorch-dev $candidate, older than $floor";;
            esac
            echo "error: no CPU LibTorch: ${route#none }; set FFDNN_TORCH_INDEX to PyTorch's" \
                 "CPU wheel index or FFDNN_LIBTORCH to an unpacked LibTorch, install the" \
                 "distribution's libtorch-dev ($floor or newer), or leave LibTorch out" \
                 "(BACKENDS=onnx,openvino,tf)" >&2
            exit 1
        fi;;
    esac;;
esac
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "error: missing build tools:$missing (apt-get install$missing)" >&2
        exit 1
    fi
    echo "deps: apt-get install$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi
# optional PACKAGE WHAT WITHOUT: Debian's PACKAGE, best effort, as root where apt has it:
# WHAT it is for, WITHOUT what happens when it is missing (no build needs it)
optional() {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: apt-get install $1 ($2)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1"; } ||
            echo "deps: $1 did not install: $3"
    else
        echo "deps: no $1 (as root: apt-get install $1): $3"
    fi
}
# llvm-symbolizer names each frame of a site's stack with its inlined functions, so a site
# keeps its name when a change alters the compiler's inlining (harness/run/sites.py); GNU
# addr2line names the outermost only
command -v llvm-symbolizer >/dev/null 2>&1 ||
    optional llvm "llvm-symbolizer: sites named through inlining" \
        "sites are named with addr2line (outermost function of an inlined frame)"
# `make test`: the HTML page's test (tests/engine/test_diff.py) renders it in headless
# chromium; without it the test skips naming the package
if [ "${1:-}" = test ] && ! command -v chromium >/dev/null 2>&1 &&
   ! command -v chromium-browser >/dev/null 2>&1; then
    optional chromium "the HTML page's test" "the HTML page's test will skip"
fi
exit 0
