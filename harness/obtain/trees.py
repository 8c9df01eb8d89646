"""The trees of a layout (harness/obtain/layout.py; a case's, such as base, before and
after): FFmpeg trees built from a pinned release plus a series, or from refs of a clone.

Each tree is a cache entry `<cache>/trees/<name>-<key>/` holding the source as a git
repository (the series applied with `git am`), built in place, and a stamp.json.
A child tree starts as a copy of its parent's entry, objects included, so applying
a patch recompiles only the files it touches. A tree whose sources and configuration
are those of a tree already built (a clone's ref that is the series' before, a
`--patch` that makes what another ref made) is a copy of that tree's objects: its twin.

The plan is here; how a tree is configured is harness/obtain/recipe.py, a built tree and
its stamp harness/obtain/tree.py, the steps that build it harness/obtain/build.py, and
its twin harness/obtain/twins.py.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harness.obtain import backends as backends_mod
from harness.obtain import releases, source, sourcetext
from harness.obtain.build import (change_source, compiler, configure, copy_tree, fresh_source,
                                  git, make, say, total_warnings)
from harness.obtain.layout import Layout
from harness.obtain.recipe import (CONFIGURE, FILTER_ARG, RECIPE, SANITIZER_CONFIGURE,
                                   SANITIZERS, filter_arg)
from harness.obtain.tree import Tree, check_stamp, library_files, read_stamp
from harness.obtain.twins import adopt, find_twin
from harness.errors import BuildError, HarnessError, StampError
from harness.paths import atomic_dir, atomic_file, cache_root, digest, file_sha256


class Plan:
    """How to get each tree for one backend set: the trees of `layout` (a case's: the
    release plus its series, harness/obtain/layout.py), or (bring your own tree) a chain
    of refs of the user's own FFmpeg clone."""

    def __init__(self, backends="default", layout: Layout = None, source_file=None,
                 repo=None, refs=None, sanitizer=None, release=None):
        if sanitizer and sanitizer not in SANITIZERS:
            raise HarnessError(f"unknown sanitizer '{sanitizer}' (known: {', '.join(SANITIZERS)})")
        if sanitizer and repo:
            raise HarnessError("--sanitizer builds base and before of the release, not "
                               "a tree of your own (--git-dir)")
        if release and repo:
            raise HarnessError("--release and --git-dir are two ways to get a tree; give one")
        self.sanitizer = sanitizer
        release = release or (layout.release if layout else None)  # the layout's, by default
        self.release = releases.get(release) if release else None
        self.requested = backends_mod.parse(backends)
        self.source_file = source_file
        if source_file and self.release:  # a tarball the user names is checked first
            source.fetch(source_file, self.release)
        self.repo = Path(repo).expanduser().resolve() if repo else None
        self.refs = dict(refs or {})
        self.layout = Layout.chain(self.refs, layout.filters if layout else ()) \
            if self.repo else layout
        if self.layout is None:
            raise HarnessError("no layout: which trees to build (a case's LAYOUT)")
        if sanitizer and not self.layout.sanitizer_trees:
            raise HarnessError("the layout builds no tree under a sanitizer")
        if self.release is None and not self.repo:
            raise HarnessError("no release: the layout names none (Layout.release) and "
                               "none is given (--release)")
        self._installed = None
        self._backend_names = None
        self.left_out = {}  # backend -> why this source's trees are built without it
        self._keys = {}

    def _configure_script(self) -> str:
        """The first tree's configure script, before anything is built."""
        if self.repo:
            first = self.refs[self.names[0]]
            return git(self.repo, "show", f"{first}:configure").stdout
        cached = source.cached_path(self.release).with_suffix(".configure")
        if not cached.is_file():
            tarball = source.fetch(self.source_file, self.release)
            text = subprocess.run(["tar", "-xOf", str(tarball), "--wildcards", "*/configure"],
                                  capture_output=True, text=True).stdout
            if not text:
                raise BuildError(f"{tarball}: no configure script in it")
            with atomic_file(cached) as tmp:
                tmp.write_text(text)
        return cached.read_text()

    @property
    def backend_names(self) -> tuple:
        """The backends asked for that this source's configure can enable: `all` on a
        release without ONNX Runtime's backend builds the others, and one whose configure
        checks for headers the harness's pinned backend does not ship (5.1's OpenVINO C
        API of before 2024) is left out; why each was left out is in `left_out`."""
        if self._backend_names is None:
            script, left_out = self._configure_script(), {}
            for n in self.requested:
                lib = backends_mod.BACKENDS[n].library
                headers = sourcetext.configure_headers(script, lib)
                if not sourcetext.configure_knows(script, lib):
                    left_out[n] = f"its configure has no --enable-{lib}"
                elif headers and not any(map(backends_mod.install(n).has_header, headers)):
                    spec = backends_mod.BACKENDS[n]
                    left_out[n] = (f"its configure checks --enable-{lib} for "
                                   f"{' or '.join(headers)}, which {spec.package} "
                                   f"{spec.version} does not ship")
            keep = tuple(n for n in self.requested if n not in left_out)
            for n, why in left_out.items():
                print(f"[{self.describe()}] {why}: built without {n}", file=sys.stderr,
                      flush=True)
            self.left_out = left_out
            if not keep:
                raise BuildError(f"{self.describe()}: its configure enables none of the "
                                 f"backends asked for ({', '.join(self.requested)})")
            self._backend_names = keep
        return self._backend_names

    def describe(self) -> str:
        """What the trees come from: `FFmpeg 8.1.2` or the clone and its refs."""
        if self.repo:
            return f"{self.repo} " + ", ".join(f"{n}={r}" for n, r in self.refs.items())
        return self.release.describe()

    @property
    def names(self) -> tuple:
        if self.sanitizer:
            return self.layout.sanitizer_trees
        return self.layout.names

    def label(self, name: str) -> str:
        """The tree's name with its variant: `base`, or `base-asan`."""
        return f"{name}-{self.sanitizer}" if self.sanitizer else name

    def installed(self) -> list:
        if self._installed is None:
            self._installed = [backends_mod.install(n) for n in self.backend_names]
        return self._installed

    def configure_args(self) -> list:
        args = [filter_arg(self.layout) if a == FILTER_ARG else a
                for a in (SANITIZER_CONFIGURE if self.sanitizer else CONFIGURE)]
        cflags, ldflags, libs = [], [], []
        for b in self.installed():
            args += b.configure
            cflags += b.cflags
            ldflags += b.ldflags
            libs += b.extra_libs
        for opt, vals in (("cflags", cflags), ("cxxflags", cflags), ("ldflags", ldflags),
                          ("libs", libs)):
            if vals:
                args.append(f"--extra-{opt}={' '.join(vals)}")
        if self.sanitizer:  # in the configure flags, so in the key
            args += SANITIZERS[self.sanitizer]
        return args

    def _origin(self, name: str) -> dict:
        if self.repo:
            commit = git(self.repo, "rev-parse", "--verify", self.refs[name] + "^{commit}").stdout
            return {"kind": "git", "commit": commit.strip()}  # the repo's path is not content
        origin = {"kind": "release", "version": self.release.version,
                  "sha256": self.release.sha256}
        pkg = self.release.packaging
        if pkg:  # Debian's patches on the orig tarball
            origin["debian"] = {"suite": pkg.suite, "version": pkg.version, "sha256": pkg.sha256}
        if not self.strict:
            origin["apply"] = "git am -3, leaving out what does not apply"
        return origin

    @property
    def strict(self) -> bool:
        """Whether every patch must apply: on a clone's refs, or on the release the
        layout's series was adapted to (elsewhere `git am -3`, leaving out what fails)."""
        return bool(self.repo) or releases.strict(self.release, self.layout.release)

    def parent(self, name: str):
        return self.layout.parent(name)

    def patches(self, name: str) -> list:
        return self.layout.patches(name)

    def coverage(self, name: str) -> bool:
        """Whether the tree's own objects are built with gcov's instrumentation: a change's
        tree (harness/obtain/patched.py), none of a case's layout."""
        return False

    def key(self, name: str) -> str:
        if name not in self._keys:
            parent = self.parent(name)
            self._keys[name] = digest(
                RECIPE, self._origin(name), self.configure_args(),
                [b.stamp() for b in self.installed()], compiler(),
                self.key(parent) if parent else None,
                [file_sha256(p) for p in self.patches(name)],
                *(["coverage"] if self.coverage(name) else []))
        return self._keys[name]

    def path(self, name: str) -> Path:
        return cache_root() / "trees" / f"{self.label(name)}-{self.key(name)[:16]}"

    def get(self, name: str, build=True) -> Tree:
        """The tree, from the cache, or built now (parents first) when `build`."""
        if name not in self.names:
            raise HarnessError(f"unknown tree '{name}' (known: {', '.join(self.names)})")
        path = self.path(name)
        stamp_file = path / "stamp.json"
        if not stamp_file.is_file():
            if not build:
                variant = f" --sanitizer {self.sanitizer}" if self.sanitizer else ""
                release = (f" --release {self.release.name}"
                           if not self.repo and self.release.name != self.layout.release else "")
                raise StampError(f"tree '{self.label(name)}' is not built (run: python -m "
                                 f"harness build --tree {name}{variant}{release})")
            parent = self.parent(name)
            parent_tree = self.get(parent) if parent else None
            print(f"build: {self.label(name)} ({', '.join(self.backend_names) or 'no backend'})"
                  f" is not in the cache: building it now"
                  f"{'' if parent else ' (a cold build: several minutes)'}",
                  file=sys.stderr, flush=True)
            self._build(name, parent_tree, path)
        tree = Tree(self.label(name), path, read_stamp(path))
        if tree.stamp.get("key") != self.key(name):
            raise StampError(f"{stamp_file}: key does not match the tree's recipe")
        check_stamp(tree)
        return tree

    def _build(self, name: str, parent, final: Path) -> None:
        final.parent.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(final.parent).free
        if free < 3 << 30:
            raise BuildError(f"[{name}] only {free >> 20} MiB free under {final.parent}; "
                             "a tree needs about 3 GiB")
        origin, t0, times = self._origin(name), time.monotonic(), {}
        label = self.label(name)
        with atomic_dir(final) as tmp:
            src, log = tmp / "src", tmp / "build.log"
            if parent:
                say(label, "copy", f"source and objects of {parent.name}")
                copy_tree(parent.src, src)
                applied, skipped = change_source(self, name, src, parent.source, origin)
                series = parent.series + applied
                skipped = parent.stamp.get("skipped", []) + skipped
            else:
                fresh_source(self, name, src, origin)
                series, skipped = [], []
            # a change's tree compiles what it changes itself, instrumented: no twin
            twin = None if parent and self.coverage(name) else find_twin({
                "recipe": RECIPE, "sanitizer": self.sanitizer,
                "configure": self.configure_args(), "compiler": compiler(),
                "backends": [b.stamp() for b in self.installed()],
                "source_tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip()})
            if twin:
                say(label, "copy", f"objects of {twin.name} ({twin.path.name}): the same "
                    "sources, configured the same way")
                adopt(twin, src)
            elif not parent:
                t = time.monotonic()
                configure(label, src, self.configure_args(),
                          ":".join(b.pkg_config_path for b in self.installed()
                                   if b.pkg_config_path), log)
                times["configure"] = round(time.monotonic() - t, 1)
            t = time.monotonic()
            # a change's tree built from its parent's objects: the objects it recompiles,
            # its own, count the lines they run (a diff's "changed lines executed")
            instrumented = bool(parent) and not twin and self.coverage(name)
            count, own = make(label, src, log, coverage=instrumented)
            times["compile"] = round(time.monotonic() - t, 1)
            donor = twin or parent  # whose objects these are, and their warnings
            warnings = total_warnings(donor.warnings if donor else {}, own)
            stamp = {
                "tree": name, "key": self.key(name), "recipe": RECIPE,
                "sanitizer": self.sanitizer,
                "source": {**origin, **({"repo": str(self.repo)} if self.repo else {})},
                "parent": parent.key if parent else None,
                **({"twin": {"entry": twin.path.name, "key": twin.key}}
                   if twin else {}),
                "series": series, "series_sha256": digest(series),
                **({"skipped": skipped} if skipped else {}),
                "configure": self.configure_args(), "compiler": compiler(),
                "backends": [b.stamp() for b in self.installed()],
                "runtime_dirs": [d for b in self.installed() for d in b.runtime_dirs],
                "head": git(src, "rev-parse", "HEAD").stdout.strip(),
                "source_tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip(),
                "objects_compiled": count, "warnings": warnings,
                **({"coverage": {"build_src": str(src), "objects": sorted(own)}}
                   if instrumented else {}),
                "libraries": library_files(src),
                "warning_count": sum(len(v) for v in warnings.values()),
                "seconds": {**times, "total": round(time.monotonic() - t0, 1)},
                "python": sys.version.split()[0],
            }
            (tmp / "stamp.json").write_text(json.dumps(stamp, indent=1) + "\n")
        say(label, "done", f"{stamp['seconds']['total']} s, {count} objects, "
            f"{stamp['warning_count']} warning lines -> {final}")
