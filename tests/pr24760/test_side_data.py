"""What the frames carry (issue 38): a sweep's run whose frames have the census's pixels but
not its boxes or labels is ALTERED. On after, no backend looks at the result of
ff_frame_to_dnn_classify() (the follow-ups' 0002 does): OpenVINO classifies an input never
filled, and only the confidence on the box shows it. dnn_classify reads its labels file in
init (read_classify_label_file()); a mistake that returns 0 where an allocation failed
there lets the filter go on with the labels read so far, and each box is then labelled
with its class index ("1") where it was "dog": the pixels are the same, only the side data
shows it."""

import pytest

from harness.cases.pr24760 import EXPECT
from harness.compile.families import sweep_fault
from harness.experiments import sweep as sweeps
from harness.judge import mutants, sweep
from harness.run import forkclient, matrix
from tests import mistakes

CLASSIFY = "libavfilter/vf_dnn_classify.c"


@pytest.mark.openvino
@pytest.mark.tensorflow
@pytest.mark.dnn_classify
def test_a_classification_of_an_unfilled_input_is_altered(tree, preload):
    """Every call of ff_frame_to_dnn_classify() failed in turn on after: each run's frames
    are the census's, pixel for pixel, and its box the same, but the classifier's
    confidence on the frame whose input was never filled is not."""
    scs = matrix.scenarios([tree("after")], "openvino", "dnn_classify",
                           ["wrap:ff_frame_to_dnn_classify=1*return(AVERROR(ENOMEM))"],
                           route="sweep")
    f = sweeps.sweep(scs, preload, jobs=2, expect=EXPECT, pool=forkclient.DEFAULT)["after"]
    census = f.census.record.frames
    assert f[0] == sweep.FRAMES, "one classification a frame"
    for s in f[1]:
        frames = s.result.record.frames
        assert [x.md5 for x in frames] == [x.md5 for x in census]
        assert [[b.box for b in x.boxes] for x in frames] == \
            [[b.box for b in x.boxes] for x in census] == [["32x32+16+16"]] * sweep.FRAMES
        assert frames[s.index].boxes[0].classify != census[s.index].boxes[0].classify
        assert s.cls is sweep.Class.ALTERED, s.command


@pytest.mark.openvino
@pytest.mark.tensorflow
@pytest.mark.dnn_classify
def test_labels_read_in_part_kill_the_mutant(tree, preload):
    """The mutant that returns 0 when av_strdup() of a label fails, built and diffed on
    the setup route's allocations through read_classify_label_file(): where after says
    AVERROR(ENOMEM) (SURFACED), the mutant's frames come out labelled "1" (ALTERED), a
    regression; judged by md5 alone those frames were CLEAN (where av_strdup() itself
    failed, what the mutant leaves behind kills it too: a leak, harness/run/leaks.py)."""
    after = tree("after")
    text = (after.src / CLASSIFY).read_text()
    # its two AVERROR(ENOMEM): av_strdup()'s failure, then av_dynarray_add_nofree()'s
    m, _ = [m for m in mutants.mutants(text, CLASSIFY, ("return-zero",))
            if m.function == "read_classify_label_file" and m.before.strip() == "AVERROR(ENOMEM)"]
    assert text.index("av_strdup(buf)") < m.start < text.index("av_dynarray_add_nofree("), m
    f = mistakes.fate(m, after, "pr24760", ("openvino", "dnn_classify"), "malloc", preload,
                      routes=("setup",))
    assert f.fate == "killed", f
    # the frames labelled "1": ALTERED; where the label's own av_strdup() failed, the
    # mutant's frames are right and the block it did not free is the regression (leaks)
    assert any("SURFACED -> ALTERED" in r for r in f.regressions), f
    assert all("SURFACED -> ALTERED" in r or ", leaks " in r for r in f.regressions), f


YOLO = "dnn_detect_parse_yolo_output"


@pytest.mark.openvino
@pytest.mark.dnn_detect
def test_yolo_boxes_come_from_the_cells(tree, preload):
    """dnn_detect's YOLO post-processing, through the harness's dnn_detect.yolo graph
    (models/ov_models.py's yolo(): two cells whose boxes coincide, scores 0.9 and 0.8): on
    after each frame carries the stronger box only, the other dropped as overlapping; and
    every allocation of the cells' parsing that the malloc family fails (a box, the box
    FIFO's growth) ends with the error, SURFACED."""
    scs = matrix.scenarios([tree("after")], "openvino", "dnn_detect.yolo",
                           [sweep_fault("malloc")], route="sweep")
    f = sweeps.sweep(scs, preload, jobs=2, expect=EXPECT, pool=forkclient.DEFAULT)["after"]
    census = f.census.record.frames
    assert [[(b.box, b.label, b.confidence) for b in x.boxes] for x in census] == \
        [[("32x32+16+0", "0", "9000/10000")]] * len(census), census
    through = [s for s in f[1] if YOLO in s.where]
    assert len(through) >= 2 * len(census), [s.where for s in f[1]]
    assert all(s.cls is sweep.Class.SURFACED for s in through), \
        [(s.cls, s.command) for s in through]


@pytest.mark.openvino
@pytest.mark.dnn_detect
def test_a_lost_box_allocation_in_yolo_kills_the_mutant(tree, preload):
    """The mutant that returns 0 where a box's av_mallocz() failed in the YOLO parsing,
    diffed on the frames route's allocations: after says AVERROR(ENOMEM) (SURFACED), the
    mutant's frame comes out without its box (ALTERED): killed. Before the dnn_detect.yolo
    graph no fault ran this line and the mutant was blind."""
    after = tree("after")
    path = "libavfilter/vf_dnn_detect.c"
    text = (after.src / path).read_text()
    # its two AVERROR(ENOMEM): the box's av_mallocz(), then the FIFO's write
    m, _ = [m for m in mutants.mutants(text, path, ("return-zero",))
            if m.function == YOLO and m.before.strip() == "AVERROR(ENOMEM)"]
    box = text.index("if (!bbox)", text.index(YOLO))
    assert box < m.start < text.index("av_fifo_write(", box), m
    f = mistakes.fate(m, after, "pr24760", ("openvino", "dnn_detect.yolo"), "malloc", preload)
    assert f.fate == "killed", f
    assert any("SURFACED -> ALTERED" in r for r in f.regressions), f


@pytest.mark.openvino
@pytest.mark.dnn_detect
def test_a_change_of_the_output_with_no_fault_kills_the_mutant(tree, preload):
    """The mutant that removes dnn_detect_fill_side_data()'s overlap check keeps both of
    the YOLO graph's coinciding boxes in every frame, its census's too: every faulted run
    is as its own tree's census, and only the two trees' censuses, compared, differ. The
    diff fails it (the output with no fault changed: a box more); before the censuses
    were compared it survived."""
    after = tree("after")
    path = "libavfilter/vf_dnn_detect.c"
    text = (after.src / path).read_text()
    (m,) = [m for m in mutants.mutants(text, path, ("check-removed",))
            if m.function == "dnn_detect_fill_side_data" and "overlap_bbox" in m.before]
    f = mistakes.fate(m, after, "pr24760", ("openvino", "dnn_detect.yolo"), "malloc", preload)
    assert f.fate == "killed", f
    (said,) = [r for r in f.regressions if "the output with no fault changed" in r]
    assert ("boxes [32x32+16+0 0 9000/10000] -> [32x32+16+0 0 9000/10000, "
            "32x32+16+0 0 8000/10000]") in said, said


@pytest.mark.openvino
@pytest.mark.parametrize("path, function, graph", [
    pytest.param(CLASSIFY, "read_classify_label_file", "dnn_classify",
                 marks=[pytest.mark.tensorflow, pytest.mark.dnn_classify], id="classify"),
    pytest.param("libavfilter/vf_dnn_detect.c", "read_detect_label_file", "dnn_detect",
                 marks=[pytest.mark.dnn_detect], id="detect"),
])
def test_a_label_file_left_open_kills_the_mutant(tree, preload, path, function, graph):
    """The mutant that deletes the fclose() where a label's av_strdup() failed: the error
    still surfaces (SURFACED in both trees), and the stream the mutant leaves open is a
    block of FFmpeg's left behind (the malloc injector keeps a stream FFmpeg's code opens
    as the FILE it allocated): a leak, killed. Before streams were kept it survived."""
    after = tree("after")
    text = (after.src / path).read_text()
    closes = [m for m in mutants.mutants(text, path, ("cleanup-deleted",))
              if m.function == function and m.before.strip() == "fclose(file);"]
    m = closes[1]  # the first: a line too long (no fault reaches it); then av_strdup()'s
    assert text.index("av_strdup(", text.index(function)) < m.start, m
    mistakes.killed_by_a_leak(m, after, "pr24760", ("openvino", graph), "malloc", preload,
                              routes=("setup",))
