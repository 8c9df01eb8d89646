"""The steps that build a tree: git with the recipe's identity; its source, fresh from a
release's tarball or a clone's commit (fresh_source) or its parent's changed by the
series' patches with `git am` (change_source), both for a Plan (harness/obtain/trees.py,
which puts the steps in order); configure and make, each in a process group of its own
that ends with the command; and the compiler, which is part of every tree's key.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from harness.obtain import debian, probe, source
from harness.obtain.recipe import GIT_ID
from harness import reaper
from harness.errors import BuildError, CompileError, first_error


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


def say(name: str, stage: str, text: str) -> None:
    print(f"[{name}] {stage}: {text}", file=sys.stderr, flush=True)


def _group(cmd: list, cwd: Path, stdout, env=None) -> reaper.Group:
    """`cmd` in a process group of its own that ends with the command (reaper.spawn); on
    any exception in its with block (Ctrl-C included) the whole group is killed before
    the caller's cleanup removes the directory it writes to."""
    return reaper.spawn(cmd, cwd=cwd, env=env, text=True, stdout=stdout,
                        stderr=subprocess.STDOUT)


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


def run_logged(cmd: list, cwd: Path, log: Path, env=None) -> int:
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        with _group(cmd, cwd, f, env) as p:
            pass
    return p.returncode


WARNING = re.compile(r"^(?P<file>[^:\s]+):\d+:(\d+:)? warning: ")
TARGET = re.compile(r"^(CC|CXX|AS|HOSTCC)\t(?P<obj>\S+)")


def first_objects(src: Path) -> list:
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


def make(name: str, src: Path, log: Path, coverage: bool = False) -> tuple[int, dict]:
    """Run make, a line of progress at its first object and every 50: (objects, warnings by
    object); with `coverage`, what it compiles is instrumented (coverage_make_args())."""
    cmd = ["make", f"-j{os.cpu_count() or 2}", "-Otarget",
           *(coverage_make_args(src) if coverage else []), *first_objects(src), "all"]
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
                        say(name, "compile", f"{count} object{'s' * (count > 1)}")
                elif line.startswith(("AR\t", "LD\t")):
                    say(name, "link", line.split("\t", 1)[1].strip())
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
    say(name, "compile", f"{count} objects, done")
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


def configure(name: str, src: Path, args: list, pkg_config_path: str, log: Path) -> None:
    if not shutil.which("make"):
        raise BuildError("make is not installed (apt-get install make)")
    env = dict(os.environ)
    if pkg_config_path:
        if not shutil.which("pkg-config"):
            raise BuildError("pkg-config is not installed (apt-get install pkgconf)")
        env["PKG_CONFIG_PATH"] = pkg_config_path
    say(name, "configure", " ".join(args))
    if run_logged(["./configure", *args], src, log, env) != 0:
        cfg = (src / "ffbuild/config.log")
        text = log.read_text(errors="replace")
        raise BuildError(f"[{name}] configure failed: {first_error(text)} (see {cfg})")


def total_warnings(parent: dict, own: dict) -> dict:
    merged = dict(parent)
    merged.update(own)
    return {k: v for k, v in sorted(merged.items()) if v}


def fresh_source(plan, name: str, src: Path, origin: dict) -> None:
    src.mkdir()
    if origin["kind"] == "git":
        say(plan.label(name), "source", f"{plan.repo} at {origin['commit'][:10]}")
        with subprocess.Popen(["git", "-C", str(plan.repo), "archive", origin["commit"]],
                              stdout=subprocess.PIPE) as archive:
            subprocess.run(["tar", "-x", "-C", str(src)], stdin=archive.stdout, check=True)
        if archive.returncode != 0:
            raise BuildError(f"[{name}] git archive {origin['commit']} failed")
    else:
        tarball = source.fetch(plan.source_file, plan.release)
        say(plan.label(name), "source", f"extract {tarball.name}")
        run_group(["tar", "-xf", str(tarball), "-C", str(src), "--strip-components=1"],
                  f"extracting {tarball.name}")
    git(src, "init", "-q")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", f"FFmpeg {origin.get('version') or origin['commit']}")
    pkg = plan.release.packaging if origin["kind"] == "release" else None
    if pkg:
        applied = debian.apply(pkg, src)
        say(plan.label(name), "source", f"Debian's {pkg.version}: "
            f"{len(applied)} patch{'es' if len(applied) != 1 else ''} of debian/patches")
        git(src, "commit", "-q", "--allow-empty", "-m",
            f"Debian {pkg.suite}'s ffmpeg {pkg.version}: debian/patches/series"
            + "".join(f"\n\n{n}" for n in applied))


def change_source(plan, name: str, src: Path, parent_origin: dict, origin: dict):
    """Apply what makes this tree from its parent: (patches applied, patches left
    out as [name, why])."""
    git(src, "update-index", "-q", "--refresh", check=False)  # the copy has new inodes
    if origin["kind"] == "git":
        diff = git(plan.repo, "diff", "--binary", parent_origin["commit"], origin["commit"]).stdout
        (src.parent / "refs.diff").write_text(diff)
        git(src, "apply", "--index", str(src.parent / "refs.diff"))
        git(src, "commit", "-q", "--allow-empty", "-m", f"{plan.refs[name]}")
        return [], []
    applied, skipped = [], []
    for patch in plan.patches(name):
        if plan.strict:
            say(plan.label(name), "patch", patch.name)
            _apply_patch(plan.label(name), src, patch)
            applied.append(patch.name)
            continue
        why = _try_patch(plan.label(name), src, patch)
        say(plan.label(name), "patch", f"{patch.name} (git am -3): "
            + ("applied" if why is None else f"left out: {why}"))
        if why is None:
            applied.append(patch.name)
        else:
            skipped.append([patch.name, why])
    if plan.patches(name) and not applied:
        raise BuildError(f"[{plan.label(name)}] no patch of this tree applies to "
                         f"{plan.release.describe()} ({'; '.join(f'{n}: {w}' for n, w in skipped)}):"
                         " it would be its parent again")
    return applied, skipped
