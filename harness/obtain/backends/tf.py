"""TensorFlow's C API from the tensorflow-cpu wheel, without its Python dependencies and
unpacking only headers and the two libraries (the rest, 140 MB, is Python's).
libtensorflow_cc.so.2 exports TF_*, so a libtensorflow.so symlink to it satisfies
configure's -ltensorflow; it needs libtensorflow_framework.so.2 beside it. Its detect
outputs are `&`-separated."""

from pathlib import Path

from harness.obtain.backends.backend import Backend, Graph
from harness.obtain.backends.fetch import link, need, need_system_lib, wheel

DETECT_OUTPUTS = "num_detections&detection_scores&detection_classes&detection_boxes"
# dnn_detect on TensorFlow with the {det} model: its own graph, and the boxes OpenVINO's
# dnn_classify classifies (harness/obtain/backends/openvino.py)
DETECT = f"dnn_detect=dnn_backend=tensorflow:model={{det}}:input=image_tensor:output={DETECT_OUTPUTS}"
LIBS = (("z", "zlib1g-dev"), ("atomic", "gcc"))  # the backend's configure adds -lz -latomic


def install(dest: Path, version: str) -> dict:
    for name, package in LIBS:
        need_system_lib(name, package)
    versions = wheel(f"tensorflow-cpu=={version}", dest / "wheel", "tensorflow/include/",
                     "tensorflow/libtensorflow_cc.so", "tensorflow/libtensorflow_framework.so")
    tf = dest / "wheel/tensorflow"
    files = [tf / "include/tensorflow/c/c_api.h", tf / "libtensorflow_cc.so.2",
             tf / "libtensorflow_framework.so.2"]
    need(f"tensorflow-cpu {version} wheel", *files)
    link(tf / "libtensorflow_cc.so.2", dest / "lib/libtensorflow.so")
    files.append(dest / "lib/libtensorflow.so")
    return {"versions": versions, "configure": ["--enable-libtensorflow"],
            "cflags": [f"-I{tf / 'include'}"],
            "ldflags": [f"-L{dest / 'lib'}", f"-Wl,-rpath,{tf}"],
            "extra_libs": [f"-l{name}" for name, _ in LIBS],
            "runtime_dirs": [str(tf)], "files": [str(f) for f in files]}


BACKEND = Backend(
    name="tf", package="tensorflow-cpu", version="2.18.0", install=install,
    library="libtensorflow", label="TensorFlow", product="TensorFlow", dnn_type="DNN_TF",
    option="tensorflow", marker="tensorflow", processing=":input=x:output=y:sess_config=0x1001",
    identity="tf-identity", non_identity="tf-scale", generator="tf_models",
    graphs={"dnn_detect": Graph(description=f"format=rgb24,{DETECT.replace('{det}', '{model}')}",
                                models={"model": "tf-det"})},
    libs=LIBS, ci_shard="openvino-tf",
)
