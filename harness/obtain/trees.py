"""The trees of a layout (harness/obtain/layout.py; a case's, such as base, before and
after): FFmpeg trees built from a pinned release plus a series, or from refs of a clone.

Each tree is a cache entry `<cache>/trees/<name>-<key>/` holding the source as a git
repository (the series applied with `git am`), built in place, and a stamp.json.
A child tree starts as a copy of its parent's entry, objects included, so applying
a patch recompiles only the files it touches. A tree whose sources and configuration
are those of a tree already built (a clone's ref that is the series' before, a
`--patch` that makes what another ref made) is a copy of that tree's objects: its twin.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from harness.obtain import backends as backends_mod
from harness.obtain import debian, probe, releases, source
from harness.obtain.layout import Layout
from harness import reaper
from harness.errors import (BuildError, CacheError, CompileError, HarnessError, StampError,
                            first_error)
from harness.paths import atomic_dir, atomic_file, cache_root, digest, file_sha256

RECIPE = 1  # bump when the way a tree is built changes
# the filters every graph and program run needs; a layout adds those its case's claims run
FILTERS = ("buffer,buffersink,format,scale,null,fps,trim,setpts,showinfo,testsrc,testsrc2,"
           "mandelbrot,dnn_processing,dnn_detect,dnn_classify")
FILTER_ARG = "--enable-filter="  # COMMON's place for the filters: filter_arg()
COMMON = (
    "--disable-everything", "--disable-doc", "--disable-ffplay", "--disable-ffprobe",
    "--enable-pic", "--disable-x86asm", "--disable-autodetect",
    FILTER_ARG, "--enable-indev=lavfi",
)

# the ffmpeg program's unchanged-output checks: md5 of frames, a cached clip in nut
CONFIGURE = COMMON + (
    "--enable-decoder=rawvideo,mpeg4,wrapped_avframe", "--enable-encoder=rawvideo,wrapped_avframe,mpeg4",
    "--enable-demuxer=rawvideo,nut", "--enable-muxer=md5,framemd5,null,rawvideo,nut",
    "--enable-protocol=file,pipe",
)
# A sanitizer variant only runs its claims' lavfi input through the filters into an MD5
# (harness/judge/sanitizer.py): no clip to read, so no mpeg4 and no nut, which leaves
# out about 45 of libavcodec's objects, a fifth of the compile and its slowest
# (qpeldsp, motion_est, the MPEG-4 coders).
SANITIZER_CONFIGURE = COMMON + (
    "--enable-protocol=file,pipe", "--enable-decoder=rawvideo,wrapped_avframe",
    "--enable-encoder=rawvideo,wrapped_avframe", "--enable-muxer=md5,framemd5,null",
)


def filter_arg(layout) -> str:
    """configure's --enable-filter= for a layout: the engine's filters and its own."""
    return FILTER_ARG + ",".join((FILTERS, *(layout.filters if layout else ())))


# Sanitizer variants: FFmpeg's own configure toolchains, for the trees the layout names
# (its sanitizer_trees), each with the one backend set its claim needs (harness/judge/sanitizer.py).
# ASan is built recoverable (halt_on_error=0 at run time) so that one run shows every
# path that overflows, not only the first. Both at -O1 (the sanitizers' documents ask for
# -O1 or higher), not FFmpeg's -O3: the same reports (commit 1's 30 overflows on both paths,
# commit 2's race at the same lines), the two bases compiled in 163 s side by side
# where -O3 took 214-224 s.
SANITIZERS = {"asan": ("--toolchain=gcc-asan", "--extra-cflags=-fsanitize-recover=address",
                       "--optflags=-O1"),
              "tsan": ("--toolchain=gcc-tsan", "--optflags=-O1")}
GIT_ID = {"GIT_AUTHOR_NAME": "ffdnn", "GIT_AUTHOR_EMAIL": "ffdnn@localhost",
          "GIT_COMMITTER_NAME": "ffdnn", "GIT_COMMITTER_EMAIL": "ffdnn@localhost",
          "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
          "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}


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


def compiler() -> str:
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise BuildError("no C compiler: install gcc (apt-get install build-essential)")
    out = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0]


def git(cwd: Path, *args: str, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ID}
    r = subprocess.run(["git", "-c", "core.autocrlf=false", *args], cwd=cwd, env=env,
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise BuildError(f"git {args[0]} failed in {cwd}: {first_error(r.stderr + r.stdout)}")
    return r


def _say(name: str, stage: str, text: str) -> None:
    print(f"[{name}] {stage}: {text}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _group(cmd: list, cwd: Path, stdout, env=None):
    """Popen in a process group of its own; on any exception (Ctrl-C included) the whole
    group is killed before the caller's cleanup removes the directory it writes to."""
    with subprocess.Popen(cmd, cwd=cwd, env=env, text=True, stdout=stdout,
                          stderr=subprocess.STDOUT, start_new_session=True) as p:
        reaper.add_group(p.pid)  # ended by the command's signal handler or guard too
        try:
            yield p
            p.wait()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        finally:
            reaper.drop_group(p.pid)


def run_group(cmd: list, what: str, cwd: Path = None) -> str:
    """A short command (cp -a, tar) in a group of its own, as _group: its output, or a
    BuildError naming `what` and its first error line."""
    with _group(cmd, cwd, subprocess.PIPE) as p:
        out = p.stdout.read()
    if p.returncode != 0:
        raise BuildError(f"{what} failed: {first_error(out, f'exit {p.returncode}')}")
    return out


def copy_tree(src: Path, dst: Path) -> None:
    """`cp -a` of a tree's source and objects (255 MB), ended with the command."""
    run_group(["cp", "-a", str(src), str(dst)], f"copy of {src}")


def _run_logged(cmd: list, cwd: Path, log: Path, env=None) -> int:
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        with _group(cmd, cwd, f, env) as p:
            pass
    return p.returncode


WARNING = re.compile(r"^(?P<file>[^:\s]+):\d+:(\d+:)? warning: ")
TARGET = re.compile(r"^(CC|CXX|AS|HOSTCC)\t(?P<obj>\S+)")


def _first(src: Path) -> list:
    """The enabled DNN backends' objects, C++ first: the slowest to compile (LibTorch's
    headers), named before `all` so make starts them first and no core is left alone
    with one of them at the end."""
    sources = [b.source for b in probe.facts(src).backends.values() if b.enabled and b.source]
    return [f"libavfilter/dnn/{Path(s).stem}.o"
            for s in sorted(sources, key=lambda s: not s.endswith(".cpp"))]


def coverage_make_args(src: Path) -> list:
    """make's variables that compile what it compiles now with gcov's instrumentation
    (--coverage on the tree's own compilers, config.mak's CC and CXX) and link its
    programs with gcov's runtime (LDEXEFLAGS): the objects a change makes recompile, and
    only those, count which of their lines run."""
    mak = {}
    for line in (src / "ffbuild" / "config.mak").read_text(errors="replace").splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            mak[k.strip()] = v.strip()
    return [f"CC={mak.get('CC', 'gcc')} --coverage", f"CXX={mak.get('CXX', 'g++')} --coverage",
            f"LDEXEFLAGS={mak.get('LDEXEFLAGS', '')} --coverage".replace("= ", "=")]


def _make(name: str, src: Path, log: Path, coverage: bool = False) -> tuple[int, dict]:
    """Run make, a line of progress at its first object and every 50: (objects, warnings by
    object); with `coverage`, what it compiles is instrumented (coverage_make_args())."""
    cmd = ["make", f"-j{os.cpu_count() or 2}", "-Otarget",
           *(coverage_make_args(src) if coverage else []), *_first(src), "all"]
    warnings, current, count = {}, None, 0
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        with _group(cmd, src, subprocess.PIPE) as p:
            for line in p.stdout:
                f.write(line)
                m = TARGET.match(line)
                if m:
                    current, count = m["obj"], count + 1
                    warnings.setdefault(current, [])
                    if count == 1 or count % 50 == 0:  # the first: configure is done
                        _say(name, "compile", f"{count} object{'s' * (count > 1)}")
                elif line.startswith(("AR\t", "LD\t")):
                    _say(name, "link", line.split("\t", 1)[1].strip())
                elif WARNING.match(line) and current:
                    warnings.setdefault(current, []).append(line.rstrip())
        rc = p.returncode
    if rc != 0:
        text = log.read_text(errors="replace")
        if "No space left on device" in text:
            raise BuildError(f"[{name}] disk full while compiling (see {log})")
        errors = [l for l in text.splitlines() if ": error: " in l or "undefined reference to" in l
                  or l.startswith("make: ***")]
        first = (errors or ['see ' + str(log)])[0]
        raise CompileError(f"[{name}] make failed: {first}", name, first)
    _say(name, "compile", f"{count} objects, done")
    return count, warnings


def _apply_patch(name: str, src: Path, patch: Path) -> None:
    r = git(src, "am", "-q", "--committer-date-is-author-date", str(patch), check=False)
    if r.returncode != 0:
        text = r.stdout + r.stderr
        m = re.search(r"patch failed: (\S+)", text) or re.search(r"error: (\S+): does not exist", text)
        where = m.group(1) if m else first_error(text)
        raise BuildError(f"[{name}] patch {patch.name} does not apply: {where}")


def _try_patch(name: str, src: Path, patch: Path) -> str | None:
    """`git am -3` one patch; None when it applied, else why not, from `git apply
    --check` (which files the tree lacks, which hunks do not match), the tree left as
    it was."""
    r = git(src, "am", "-q", "-3", "--committer-date-is-author-date", str(patch), check=False)
    if r.returncode == 0:
        return None
    am = r.stdout + r.stderr
    git(src, "am", "--abort", check=False)
    check = git(src, "apply", "--check", str(patch), check=False).stderr
    missing = re.findall(r"error: (\S+): (?:No such file or directory|does not exist in index)",
                         check)
    failed = re.findall(r"error: patch failed: (\S+)", check)
    why = []
    if missing:
        why.append(f"no {', '.join(missing)} in this tree")
    if failed:
        why.append(f"hunks do not match at {', '.join(failed)}")
    conflicts = re.findall(r"CONFLICT \(content\): Merge conflict in (\S+)", am)
    if conflicts:
        why.append(f"3-way merge conflicts in {', '.join(conflicts)}")
    elif why and "could not build fake ancestor" in am:
        why[-1] += " (no 3-way merge: the tree has no blob of the patch's base)"
    return "; ".join(why) or first_error(am)


def _configure(name: str, src: Path, args: list, pkg_config_path: str, log: Path) -> None:
    if not shutil.which("make"):
        raise BuildError("make is not installed (apt-get install make)")
    env = dict(os.environ)
    if pkg_config_path:
        if not shutil.which("pkg-config"):
            raise BuildError("pkg-config is not installed (apt-get install pkgconf)")
        env["PKG_CONFIG_PATH"] = pkg_config_path
    _say(name, "configure", " ".join(args))
    if _run_logged(["./configure", *args], src, log, env) != 0:
        cfg = (src / "ffbuild/config.log")
        text = log.read_text(errors="replace")
        raise BuildError(f"[{name}] configure failed: {first_error(text)} (see {cfg})")


def _total_warnings(parent: dict, own: dict) -> dict:
    merged = dict(parent)
    merged.update(own)
    return {k: v for k, v in sorted(merged.items()) if v}


TWIN_FIELDS = ("recipe", "sanitizer", "configure", "compiler", "backends", "source_tree")


def find_twin(want: dict):
    """A built tree of the cache whose TWIN_FIELDS are `want`'s: the same sources,
    configured and compiled the same way, so the same objects (and the same cffi
    module). Trees with one change made for a test (harness/obtain/derived.py) build one
    target only, a twin is a copy, and a change's tree has objects built with gcov's
    instrumentation (coverage): none of them is ever a twin."""
    want = json.loads(json.dumps(want))  # as a stamp reads back
    for stamp_file in sorted((cache_root() / "trees").glob("*/stamp.json")):
        try:
            stamp = json.loads(stamp_file.read_text())
        except (OSError, ValueError):
            continue
        if "derived" in stamp or "twin" in stamp or "coverage" in stamp \
                or any(stamp.get(f) != want[f] for f in TWIN_FIELDS):
            continue
        tree = Tree(stamp["tree"], stamp_file.parent, stamp)
        try:
            check_stamp(tree)
        except StampError:
            continue
        return tree
    return None


def _adopt(twin: Tree, src: Path) -> None:
    """Make `src` (its own git history, the twin's sources) the twin's build: the
    twin's files, objects and configuration, under `src`'s own .git."""
    own_git = src.parent / "own.git"
    (src / ".git").rename(own_git)
    shutil.rmtree(src)
    copy_tree(twin.src, src)
    shutil.rmtree(src / ".git")
    own_git.rename(src / ".git")
    git(src, "update-index", "-q", "--refresh", check=False)
    if git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        raise BuildError(f"{twin.path}: its sources are not what its stamp says "
                         "(remove the entry to build it again)")


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
        self.release = releases.get(release)
        self.requested = backends_mod.parse(backends)
        self.source_file = source_file
        if source_file:  # a tarball the user names is checked before anything is fetched
            source.fetch(source_file, self.release)
        self.repo = Path(repo).expanduser().resolve() if repo else None
        self.refs = dict(refs or {})
        self.layout = Layout.chain(self.refs, layout.filters if layout else ()) \
            if self.repo else layout
        if self.layout is None:
            raise HarnessError("no layout: which trees to build (a case's LAYOUT)")
        if sanitizer and not self.layout.sanitizer_trees:
            raise HarnessError("the layout builds no tree under a sanitizer")
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
                headers = probe.configure_headers(script, lib)
                if not probe.configure_knows(script, lib):
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
        if not releases.strict(self.release):
            origin["apply"] = "git am -3, leaving out what does not apply"
        return origin

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
                           if not self.repo and self.release.name != source.FFMPEG.version else "")
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

    def _fresh_source(self, name: str, src: Path, origin: dict) -> None:
        src.mkdir()
        if origin["kind"] == "git":
            _say(self.label(name), "source", f"{self.repo} at {origin['commit'][:10]}")
            with subprocess.Popen(["git", "-C", str(self.repo), "archive", origin["commit"]],
                                  stdout=subprocess.PIPE) as archive:
                subprocess.run(["tar", "-x", "-C", str(src)], stdin=archive.stdout, check=True)
            if archive.returncode != 0:
                raise BuildError(f"[{name}] git archive {origin['commit']} failed")
        else:
            tarball = source.fetch(self.source_file, self.release)
            _say(self.label(name), "source", f"extract {tarball.name}")
            run_group(["tar", "-xf", str(tarball), "-C", str(src), "--strip-components=1"],
                      f"extracting {tarball.name}")
        git(src, "init", "-q")
        git(src, "add", "-A")
        git(src, "commit", "-q", "-m", f"FFmpeg {origin.get('version') or origin['commit']}")
        pkg = self.release.packaging if origin["kind"] == "release" else None
        if pkg:
            applied = debian.apply(pkg, src)
            _say(self.label(name), "source", f"Debian's {pkg.version}: "
                 f"{len(applied)} patch{'es' if len(applied) != 1 else ''} of debian/patches")
            git(src, "commit", "-q", "--allow-empty", "-m",
                f"Debian {pkg.suite}'s ffmpeg {pkg.version}: debian/patches/series"
                + "".join(f"\n\n{n}" for n in applied))

    def _change_source(self, name: str, src: Path, parent_origin: dict, origin: dict):
        """Apply what makes this tree from its parent: (patches applied, patches left
        out as [name, why])."""
        git(src, "update-index", "-q", "--refresh", check=False)  # the copy has new inodes
        if origin["kind"] == "git":
            diff = git(self.repo, "diff", "--binary", parent_origin["commit"], origin["commit"]).stdout
            (src.parent / "refs.diff").write_text(diff)
            git(src, "apply", "--index", str(src.parent / "refs.diff"))
            git(src, "commit", "-q", "--allow-empty", "-m", f"{self.refs[name]}")
            return [], []
        applied, skipped = [], []
        for patch in self.patches(name):
            if releases.strict(self.release):
                _say(self.label(name), "patch", patch.name)
                _apply_patch(self.label(name), src, patch)
                applied.append(patch.name)
                continue
            why = _try_patch(self.label(name), src, patch)
            _say(self.label(name), "patch", f"{patch.name} (git am -3): "
                 + ("applied" if why is None else f"left out: {why}"))
            if why is None:
                applied.append(patch.name)
            else:
                skipped.append([patch.name, why])
        if self.patches(name) and not applied:
            raise BuildError(f"[{self.label(name)}] no patch of this tree applies to "
                             f"{self.release.describe()} ({'; '.join(f'{n}: {w}' for n, w in skipped)}):"
                             " it would be its parent again")
        return applied, skipped

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
                _say(label, "copy", f"source and objects of {parent.name}")
                copy_tree(parent.src, src)
                applied, skipped = self._change_source(name, src, parent.source, origin)
                series = parent.series + applied
                skipped = parent.stamp.get("skipped", []) + skipped
            else:
                self._fresh_source(name, src, origin)
                series, skipped = [], []
            # a change's tree compiles what it changes itself, instrumented: no twin
            twin = None if parent and self.coverage(name) else find_twin({
                "recipe": RECIPE, "sanitizer": self.sanitizer,
                "configure": self.configure_args(), "compiler": compiler(),
                "backends": [b.stamp() for b in self.installed()],
                "source_tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip()})
            if twin:
                _say(label, "copy", f"objects of {twin.name} ({twin.path.name}): the same "
                     "sources, configured the same way")
                _adopt(twin, src)
            elif not parent:
                t = time.monotonic()
                _configure(label, src, self.configure_args(),
                           ":".join(b.pkg_config_path for b in self.installed()
                                    if b.pkg_config_path), log)
                times["configure"] = round(time.monotonic() - t, 1)
            t = time.monotonic()
            # a change's tree built from its parent's objects: the objects it recompiles,
            # its own, count the lines they run (a diff's "changed lines executed")
            instrumented = bool(parent) and not twin and self.coverage(name)
            count, own = _make(label, src, log, coverage=instrumented)
            times["compile"] = round(time.monotonic() - t, 1)
            donor = twin or parent  # whose objects these are, and their warnings
            warnings = _total_warnings(donor.warnings if donor else {}, own)
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
        _say(label, "done", f"{stamp['seconds']['total']} s, {count} objects, "
             f"{stamp['warning_count']} warning lines -> {final}")

