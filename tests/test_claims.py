"""#24702's own claims (issue 8), base against before, with models that make 9.0.2's
post-processing fail for real. The expected rows live in harness/expected.py."""

import errno

import pytest

import models
from harness import expected, matrix
from harness.outcome import Outcome
from harness.paths import cache_root
from harness.runner import run_one

MARK = {"tf": "tensorflow", "openvino": "openvino"}


def _params():
    for c in expected.COMMIT_CLAIMS:
        for build in ("base", "before"):
            yield pytest.param(c, build, id=f"{c.id}-{build}",
                               marks=[getattr(pytest.mark, f"commit{c.commit}"),
                                      getattr(pytest.mark, MARK[c.backend]),
                                      getattr(pytest.mark, build)])


@pytest.mark.parametrize("claim, build", list(_params()))
def test_commit_claim(tree, preload, claim, build):
    t = tree(build)
    if claim.backend not in {b["name"] for b in t.stamp["backends"]}:
        pytest.skip(f"tree built without {claim.backend} (run: make test BACKENDS=all)")
    model = models.path(claim.model, cache_root() / "models")
    (sc,) = matrix.scenarios([t], claim.backend, claim.filter, ["none"], model=str(model),
                             timeout=10.0)
    r = run_one(sc, preload)
    want = getattr(claim, build)
    if want.get("hang"):
        assert r.outcome is Outcome.HANG, f"{r.outcome.value}: {r.reason}"
    else:
        assert r.outcome in (Outcome.PASS, Outcome.MEASURED), f"{r.outcome.value}: {r.reason}"
        errors = [c for c in r.data["drained"] if c < 0 and c != -errno.EAGAIN]
        assert errors == want["errors"]
        assert r.data["sink"][-1] == expected.errnos.AVERROR_EOF
    assert [f["md5"] for f in r.data.get("frames", [])] == want["frames"]
