"""What a case is made of, as the engine reads it: a case (harness/cases/) builds its data
from these types and imports nothing of the judge's; the judge reads them."""

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainedRow:
    """A row of `unchanged` over real footage with a trained model (harness/judge/trained.py):
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
