"""OpenVINO: C headers and libraries from the openvino wheel (TBB and hwloc are in it too;
its dependencies numpy and openvino-telemetry are Python-only). configure finds the 2.0 C
API only through pkg-config (its fallback knows only the legacy c_api/ie_c_api.h), so an
openvino.pc is written; ${pcfiledir} keeps it right after the entry is renamed into place.
libs/ stays whole: the plugins load from it at run time. Its models have fixed shapes and
dnn_processing needs layout=nchw; it ignores output=."""

from pathlib import Path

from harness.obtain.backends.backend import Backend, Graph
from harness.obtain.backends.fetch import link, need, one, wheel
from harness.obtain.backends.tf import DETECT as TF_DETECT


def install(dest: Path, version: str) -> dict:
    versions = wheel(f"openvino=={version}", dest / "wheel",
                     "openvino/include/", "openvino/libs/")
    ov, what = dest / "wheel/openvino", f"openvino {version} wheel"
    lib = one(ov / "libs", "libopenvino_c.so.*", what)
    files = [ov / "include/openvino/c/openvino.h", lib, ov / "libs/libtbb.so.12",
             ov / "libs/libopenvino_intel_cpu_plugin.so"]
    need(what, *files)
    link(lib, dest / "lib/libopenvino_c.so")
    files.append(dest / "lib/libopenvino_c.so")
    (dest / "pkgconfig").mkdir()
    (dest / "pkgconfig/openvino.pc").write_text(
        "prefix=${pcfiledir}/..\nName: openvino\nDescription: OpenVINO C API (wheel)\n"
        f"Version: {version}\nCflags: -I${{prefix}}/wheel/openvino/include\n"
        "Libs: -L${prefix}/lib -lopenvino_c -Wl,-rpath,${prefix}/wheel/openvino/libs\n")
    files.append(dest / "pkgconfig/openvino.pc")  # the binary's rpath runs through it
    return {"versions": versions, "configure": ["--enable-libopenvino"],
            "pkg_config_path": str(dest / "pkgconfig"),
            "runtime_dirs": [str(ov / "libs")], "files": [str(f) for f in files]}


BACKEND = Backend(
    name="openvino", package="openvino", version="2026.4.1", install=install,
    library="libopenvino", label="OpenVINO", product="OpenVINO", dnn_type="DNN_OV",
    option="openvino", marker="openvino",
    processing=":input=x:output=y:layout=nchw:input_resizable=1",
    identity="ov-identity", non_identity="ov-scale", generator="ov_models",
    graphs={
        "dnn_detect": Graph(
            description="format=rgb24,dnn_detect=dnn_backend=openvino:model={model}:input=x"
                        ":labels={labels}",
            models={"model": "ov-detect", "labels": "ov-classify-labels"}),
        # dnn_detect's YOLO post-processing (the default model_type is ssd): boxes parsed
        # from cells, two of them overlapping (models/ov_models.py's yolo())
        "dnn_detect.yolo": Graph(
            description="format=rgb24,dnn_detect=dnn_backend=openvino:model={model}:input=x"
                        ":model_type=yolo:cell_w=2:cell_h=2:nb_classes=1:anchors=1&1",
            models={"model": "ov-yolo"}, note="YOLO post-processing"),
        "dnn_classify": Graph(
            description=f"format=rgb24,{TF_DETECT},dnn_classify=dnn_backend=openvino:"
                        "model={model}:input=x:labels={labels}:confidence=0",
            models={"det": "tf-det", "model": "ov-classify", "labels": "ov-classify-labels"},
            note="boxes from dnn_detect on TensorFlow", needs=("tf",)),
    },
    ci_shard="openvino-tf",  # with TensorFlow: dnn_classify takes its boxes
)
