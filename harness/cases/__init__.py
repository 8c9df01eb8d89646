"""Cases: what a patch series claims, as data the engine loads by name.

A case is one module here (pr24760: FFmpeg PR #24760 on the series #24702) with its
patches under builds/patches/, and exports one CASE (harness/case.py's Case). It holds the
trees it builds (its layout: each tree's parent and patches), the rows a run is judged
against, the tables the `table` command runs, the hangs it expects, the reverted commits
and the sanitizer claims, each quoting the sentence it comes from. The engine imports no case:
harness/caseload.py loads one by name (--case) and the runner is handed what to expect
(harness.run.runner.Expect).
"""

DEFAULT = "pr24760"  # the case a command judges against when --case names none
