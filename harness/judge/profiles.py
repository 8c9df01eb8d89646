"""Which values a site is failed with: each function's fault profile (its stanza's values,
and for a `source` profile the AVERROR codes its body returns in each tree, read by the
probe), all of them or only the first, by the `--values` mode and whether the site's
stack runs through the change. After LFI's per-function fault profiles: a mistake about
one error value (a positive errno returned for EINVAL, say) shows only when that value
is injected."""

from harness.compile.families import FAMILIES
from harness.errors import HarnessError
from harness.obtain import probe

MODES = ("changed", "all", "one")
DEFAULT = "changed"  # every value where the site runs through the change, one elsewhere


def mode(text: str | None) -> str:
    """--values: all, changed or one; anything else is bad input."""
    text = (text or DEFAULT).strip()
    if text not in MODES:
        raise HarnessError(f"bad --values '{text}' (known: {', '.join(MODES)})")
    return text


def profile(family: str, function: str, trees) -> tuple:
    """Every value `function` of `family` can fail with, on any of `trees`: its stanza's,
    then each tree's source-read ones; the first is the one-value sweep's."""
    fam = FAMILIES[family]
    out = list(fam.declared(function))
    if fam.reads_source(function):
        for t in trees:
            out += probe.profile(t.src, function)
    return tuple(dict.fromkeys(out))


def chosen(family: str, function: str, trees, how: str, through: bool,
           given: str = "") -> tuple:
    """The values a site is failed with: every one of its profile (`all`, or `changed` at
    a site whose stack runs through the change), else one: `given` (the spec's) where it
    is in the profile, else the first."""
    every = profile(family, function, trees)
    if how == "all" or (how == "changed" and through):
        return every
    return (given,) if given in every else every[:1]
