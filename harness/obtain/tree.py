"""A built tree and its stamp: where a tree's cache entry is and what it was built from
(stamp.json, read and checked before the harness loads a build), and its static
libraries, recorded when it is built and checked on every load.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from harness.errors import CacheError, StampError
from harness.paths import digest, file_sha256


@dataclass(frozen=True)
class Tree:
    """A built tree in the cache: where it is and what it was built from (its stamp.json,
    read through the fields below; `stamp` is the file's whole text, for the reports)."""

    name: str
    path: Path
    stamp: dict

    @property
    def src(self) -> Path:
        return self.path / "src"

    @property
    def ffmpeg(self) -> Path:
        return self.src / "ffmpeg"

    @property
    def key(self) -> str:
        """The key of its cache entry: what makes two trees the same tree."""
        return self.stamp["key"]

    @property
    def backends(self) -> frozenset:
        """The DNN backends it was configured with, by the registry's names."""
        return frozenset(b["name"] for b in self.stamp["backends"])

    @property
    def source(self) -> dict:
        """Where its source came from: the release (version, sha256) or a clone's commit."""
        return self.stamp["source"]

    @property
    def series(self) -> list:
        """The patches of the case's series applied on it, in order."""
        return self.stamp["series"]

    @property
    def warnings(self) -> dict:
        """Its build's warning lines, by object."""
        return self.stamp["warnings"]


STAMP_FIELDS = ("tree", "key", "source", "series", "series_sha256", "configure", "compiler",
                "backends", "runtime_dirs", "head", "source_tree")
LIBRARIES = ("avfilter", "avformat", "avcodec", "swscale", "swresample", "avutil")
AR_MAGIC = b"!<arch>\n"


def rebuild(stamp: dict) -> str:
    """The command that builds an entry of this stamp again."""
    name = stamp.get("tree", "").split("-")[0] if isinstance(stamp, dict) else ""
    san = f" --sanitizer {stamp['sanitizer']}" if isinstance(stamp, dict) and \
        stamp.get("sanitizer") else ""
    return f"python -m harness build --tree {name}{san}" if name else "python -m harness build"


def read_stamp(path: Path) -> dict:
    """An entry's stamp.json; one that does not parse is a cache error naming the entry."""
    try:
        stamp = json.loads((path / "stamp.json").read_text())
    except (OSError, ValueError) as e:
        why = "empty" if isinstance(e, ValueError) and not (path / "stamp.json").stat().st_size \
            else f"{type(e).__name__}: {e}"
        raise CacheError(path, f"stamp.json does not parse ({why})") from None
    if not isinstance(stamp, dict):
        raise CacheError(path, "stamp.json is not an object")
    return stamp


def library_files(src: Path) -> dict:
    """The static libraries a build made, relative path -> [size, sha256]: recorded in
    the stamp, sizes checked on every load (check_stamp), hashes by `harness cache verify`."""
    out = {}
    for n in LIBRARIES:
        f = src / f"lib{n}/lib{n}.a"
        if f.is_file():
            out[f"lib{n}/lib{n}.a"] = [f.stat().st_size, file_sha256(f)]
    return out


def check_libraries(tree: "Tree", hashes: bool = False) -> None:
    """Each static library is an ar archive of the size the stamp recorded (and, with
    `hashes`, its sha256): an emptied or replaced one is a cache error."""
    recorded = tree.stamp.get("libraries", {})
    for n in LIBRARIES:
        rel = f"lib{n}/lib{n}.a"
        f = tree.src / rel
        if not f.is_file():
            if n == "avfilter" or rel in recorded:
                raise CacheError(tree.path, f"no {rel} (a partial tree?)", rebuild(tree.stamp))
            continue
        with open(f, "rb") as fh:
            if fh.read(len(AR_MAGIC)) != AR_MAGIC or f.stat().st_size <= len(AR_MAGIC):
                raise CacheError(tree.path, f"{rel} is not a static library (emptied or cut "
                                 "short)", rebuild(tree.stamp))
        if rel in recorded:
            size, sha = recorded[rel]
            if f.stat().st_size != size or (hashes and file_sha256(f) != sha):
                what = "size" if f.stat().st_size != size else "sha256"
                raise CacheError(tree.path, f"{rel} is not the file it was built as (its "
                                 f"{what})", rebuild(tree.stamp))


def check_stamp(tree: "Tree") -> None:
    """What the harness checks before it loads a build: the stamp is whole and
    consistent, and the libraries it names are still there."""
    s = tree.stamp
    missing = [f for f in STAMP_FIELDS if f not in s]
    if missing:
        raise CacheError(tree.path, f"stamp.json: missing {', '.join(missing)}", rebuild(s))
    if s["series_sha256"] != digest(s["series"]):
        raise CacheError(tree.path, "stamp.json: series hash does not match its series",
                         rebuild(s))
    check_libraries(tree)
    for d in s["runtime_dirs"]:
        if not Path(d).is_dir() or not any(Path(d).iterdir()):
            raise StampError(f"{tree.name}: backend library directory {d} is missing "
                             "(run: make build)")
