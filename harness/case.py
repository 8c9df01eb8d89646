"""What a case is, as the engine reads it: a case module (harness/cases/<name>) exports
one `CASE = Case(...)`, its data made of these types and of the stages' own (its trees'
Layout, the runner's Expect, the matrix's Table); it imports nothing of the judge's, and
the judge and the commands read its fields. A part a case lacks is None (or empty): a
command that needs it asks `part()`, and the case's lack is bad input."""

from dataclasses import dataclass, field, fields
from pathlib import Path

from harness.errors import HarnessError
from harness.obtain.layout import Layout
from harness.run.runner import NOTHING, Expect


class CaseLacks(HarnessError):
    """A command asked a case for a part it does not claim."""


@dataclass(frozen=True)
class TrainedRow:
    """A row of `unchanged` over real footage with a trained model (harness/experiments/trained.py):
    its chain, the generated or trained models it uses, the backends and packages it needs,
    and what its counts must be over the clip."""
    label: str
    what: str
    chain: str            # filled from `models`
    models: dict          # field -> model name (models.GENERATORS)
    needs: frozenset      # backends
    packages: tuple       # pinned packages beyond the footage's
    boxes_per_frame: int  # expected over the whole clip; None: any, at least one in all
    labels_per_box: int
    faces_at_least: int   # boxes ONet labels "face" (the pan crosses faces)


@dataclass(frozen=True)
class Case:
    """A case: what a patch series claims, each part for the commands that judge it."""
    name: str                     # as --case names it (its module's)
    pair: tuple                   # the trees its rows, tables and diffs compare: (from, to)
    expect: Expect = NOTHING      # each run's Expectation, and the hangs the case knows
    layout: Layout = None         # its trees: each one's parent and patches
    faults: tuple = None          # the default faults of `run` and `table`
    tables: dict = None           # `table`: title -> Table (harness/run/matrix.py)
    table_needs: dict = field(default_factory=dict)  # tree -> {"has": commits, "lacks":
                                                     # commits} of the series (judge/series.py)
    sweep: dict = None            # (backend, filter, family[, route]) -> (class of every
                                  # site, or None for a family with no site; why)
    sweep_sites: dict = field(default_factory=dict)  # the same key -> each call's class
    # its claims (`claims`, harness/experiments/claims.py): the pair of trees its commit claims
    # compare, the claims of each commit, those under the sanitizers, those of the
    # compiler's warnings, and the paragraph on who calls the faulted function (a dict)
    claims_pair: tuple = None
    commit_claims: tuple = ()
    sanitizer_claims: tuple = ()
    warning_claims: tuple = ()
    callers: dict = None
    # a case whose claim is a diff (`diff --case`): the tree its patches go on, their
    # series (a folder with a `series` file) and the class changes it must find
    on: str = None
    series: Path = None
    diff: dict = None
    # `unchanged`: the md5 of the identity rows, the trained rows and how their models
    # were made
    identity_md5: str = None
    trained_rows: tuple = ()
    trained_conversion: str = ""
    markers: dict = field(default_factory=dict)  # its pytest markers: name -> what

    def part(self, name: str):
        """The part `name` a command needs; one the case lacks is bad input, one line."""
        value = getattr(self, name)
        if value is None:
            raise CaseLacks(f"case '{self.name}' has no {name.upper()} for this command "
                            f"(it has: {', '.join(self.parts())})")
        return value

    def parts(self) -> list:
        """The parts the case has, as the error names them: its pair, and each part not
        left at its default."""
        bare = Case(self.name, self.pair)
        return sorted(f.name.upper() for f in fields(self) if f.name == "pair" or (
            f.name != "name" and getattr(self, f.name) != getattr(bare, f.name)))
