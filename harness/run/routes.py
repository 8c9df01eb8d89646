"""The routes a scenario takes through its graph (Scenario.route names one): where the fault
is armed, which flush runs at EOF, how long a frame is waited for, and what the worker
records of the failed call. The worker (harness/run/worker.py) follows the route's fields;
it asks no route by name."""

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Route:
    name: str
    standin: bool          # the PR's stand-in flush at EOF (ff_dnn_start_inference_async(),
                           # or a fixed value for flush=); else the backend's own, counted
    armed_from_start: bool  # armed before the first frame: every call of the backend's own
                            # code is a site (a sweep); else armed once the frames came out
    last_frame_armed: bool = False  # the last frame is pushed once armed (its own start fails)
    frame_seconds: float = 10.0     # how long a frame is waited for
    stuck_before_eof: bool = False  # a run idle before EOF may be judged hung (runner.STUCK):
                                    # the worker never waits for a frame longer than this
    setup_only: bool = False  # armed while the graph is made (its filters' init and config:
                              # the model's loading), disarmed once it is configured; a
                              # graph that fails is freed, as a program would
    dnn_sites_only: bool = False  # its sites are the calls made with FFmpeg's DNN code on
                                  # their stack (not libavfilter's graph code around it)

    @property
    def swept(self) -> bool:
        """A sweep's route: each run's calls are recorded, its frames waited for briefly."""
        return self.armed_from_start or self.setup_only


ROUTES = {r.name: r for r in (
    # the PR's route: the frames come out clean, then the stand-in flush at EOF
    Route(name="flush", standin=True, armed_from_start=False),
    # LibTorch's own: the last frame's thread start fails, then the backend's own flush
    Route(name="frame", standin=False, armed_from_start=False, last_frame_armed=True),
    # a sweep's: armed from the first frame, the backend's own code throughout
    Route(name="sweep", standin=False, armed_from_start=True, frame_seconds=2.0,
          stuck_before_eof=True),
    # a sweep of the set-up: every call the filter's init and config make is a site, the
    # frames and EOF then run unarmed through whatever the set-up left
    Route(name="setup", standin=False, armed_from_start=False, setup_only=True,
          dnn_sites_only=True, frame_seconds=2.0, stuck_before_eof=True),
)}


def of(name: str) -> Route:
    return ROUTES[name]
