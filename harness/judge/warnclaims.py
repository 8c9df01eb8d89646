"""A case's warning claims (its warning_claims: rows with `id`,
`file`, `same`) against two trees' stamps: the warning lines each build recorded, by
object (harness/obtain/build.py)."""


def lines(stamp: dict) -> list:
    """Every warning line of the build, sorted."""
    return sorted(line for ls in stamp["warnings"].values() for line in ls)


def naming(stamp: dict, path: str) -> list:
    """The warning lines whose source file is `path` (relative to the tree) or whose
    object is the one `path` compiles to."""
    obj = path.rsplit(".", 1)[0] + ".o"
    return [line for o, ls in stamp["warnings"].items() for line in ls
            if o == obj or line.split(":", 1)[0].endswith("/" + path)
            or line.split(":", 1)[0] == path]


def diffs(claim, before: dict, after: dict) -> list:
    """What the stamps of before and after show against one warning claim."""
    out = []
    for name, stamp in (("before", before), ("after", after)):
        if claim.file and naming(stamp, claim.file):
            out.append(f"{name}: {len(naming(stamp, claim.file))} warning lines in "
                       f"{claim.file}, first: {naming(stamp, claim.file)[0]}")
    if claim.same and lines(before) != lines(after):
        only = sorted(set(lines(before)) ^ set(lines(after)))
        out.append(f"before has {len(lines(before))} warning lines, after "
                   f"{len(lines(after))}; first difference: {only[0] if only else '(counts)'}")
    return out


def check(claims, before: dict, after: dict) -> dict:
    """claim id -> differences (empty: the claim holds)."""
    return {c.id: diffs(c, before, after) for c in claims}


def rows(claims, trees: dict):
    """One row of the claims table (harness/judge/claims.py) per warning claim, against the
    warning lines the two trees (name -> Tree) recorded."""
    from harness.judge import claims as table
    first, second = trees.values()
    for c in claims:
        found = check([c], first.stamp, second.stamp)[c.id]
        cells = {name: (f"{len(naming(t.stamp, c.file))} warning lines in "
                        f"{c.file}, {len(lines(t.stamp))} in all" if c.file
                        else f"{len(lines(t.stamp))} warning lines")
                 for name, t in trees.items()}
        yield table.row_of(c, cells, "does not reproduce: " + "; ".join(found) if found
                        else "reproduces")
