"""The sweep gives up on a frame early only where that cannot change a result: a backend
that, in this tree's own source, runs every task on the caller's thread (9.0.2's ONNX),
and only once no other thread is at work."""

import pytest

from harness.run import matrix, worker

pytestmark = [pytest.mark.after, pytest.mark.dnn_processing]


@pytest.mark.parametrize("backend, sync", [("onnx", True), ("tf", False), ("openvino", False),
                                           ("torch", False)])
def test_synchronous_backends_from_the_source(tree, backend, sync):
    t = tree("after")
    if backend not in {b["name"] for b in t.stamp["backends"]}:
        pytest.skip(f"tree built without {backend} (run: make test BACKENDS=all)")
    (sc,) = matrix.scenarios([t], backend, "dnn_processing", ["none"], route="sweep")
    assert worker.synchronous(sc) is sync


@pytest.mark.unit
def test_nothing_else_at_work_here():
    assert worker.busy_elsewhere() is False
    assert worker.others_cpu() >= 0
