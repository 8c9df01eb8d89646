"""make bench: the harness's costs on this machine, each figure measured in this run.
python bench/bench.py [--quick] [--json FILE] [--compare OLD.json]; FFDNN_BACKENDS picks the trees.

P1 cold build, all three trees over one; P6 the first `make test` after `make`; P7 a cold
`make` to its first table (P1, P6, P7 in scratch caches sharing only the downloads; skipped
with --quick); P2 warm PR table, pytest and harness run, and the whole warm `make test`;
P3 the per-scenario time against a bare Python process and a C program (floor_py.py,
floor_c/dnn_floor.c); P4 -j 2 over -j 1 (P4c with the fork servers already up); P5 a no-op
`make build`; P8 a sweep's rate against one scenario's own cost, and the ONNX Runtime malloc
sweep's wall; P9 the whole default diff of after against after + the follow-ups, whole and
as 4 shards (skipped with --quick); P10 the gate's own cost: the coverage variant's sweep
against the plain tree's, and `mutate`'s wall per mutant. Timings are wall clock and only indicative when other work shares the
machine (see load in the JSON). What a step reads of a command's output it reads through
harness/judge/readers.py (the JSON) or a function here that tests/engine/test_bench.py runs on
outputs recorded from the real commands (tests/data/bench/).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from harness import caseload  # noqa: E402
from harness.compile import ffi_build  # noqa: E402
from harness.judge import readers  # noqa: E402
from harness.run import forkclient, matrix, runner  # noqa: E402
from harness.paths import cache_root  # noqa: E402
from harness.obtain.trees import Plan  # noqa: E402

PY = sys.executable
RESULTS = ROOT / "results"
BACKENDS = os.environ.get("FFDNN_BACKENDS") or "default"  # the trees, as tests/conftest.py
PR_TABLE = ["-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
            "-m", "onnx and (before or after)", "tests/pr24760/test_matrix.py"]
MAKE_MARKS = {"built": r"-m harness table ", "table": r"^\|"}  # in `make`'s stdout (P1, P7)
TEST_MARKS = {"suite": r"-m pytest ", "summary": r" (passed|failed)"}  # `make test`'s (P6)
P4_FAULTS = ["pthread_create=EAGAIN", "pthread_create=EINVAL", "pthread_create=EPERM",
             "flush=AVERROR(EAGAIN)", "none", "pthread_create=ENOMEM", "pthread_create=EBUSY"]


def case():
    """The default case (the PR's: its layout of trees and its expectations), by name."""
    return caseload.load()


def wall(cmd, env=None, check=True) -> float:
    """Seconds one command takes (cwd: the project), its output kept for errors."""
    t0, env = time.monotonic(), {**os.environ, "FFDNN_BACKENDS": BACKENDS, **(env or {})}
    r = subprocess.run(cmd, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    seconds = time.monotonic() - t0
    if check and r.returncode != 0:
        tail = "\n".join(r.stdout.splitlines()[-15:])
        raise RuntimeError(f"{shlex.join(map(str, cmd))} exited {r.returncode}:\n{tail}")
    return seconds


def median(f, n=3) -> float:
    return statistics.median(f() for _ in range(n))


def figure(fid, name, measured, unit, limit, higher_better=False, detail="") -> dict:
    ok = measured >= limit if higher_better else measured <= limit
    return {"id": fid, "figure": name, "measured": round(measured, 3), "unit": unit,
            "target": f"{'≥' if higher_better else '≤'} {limit:g}{unit}", "pass": ok,
            "detail": detail, "load": round(os.getloadavg()[0], 2)}


SHARED = ("src", "backends", "apt", "packages")  # downloads a scratch cache takes from the real one


def scratch_cache(root: Path) -> Path:
    """An empty cache that shares only what is downloaded (the FFmpeg tarball, the
    backends' wheels, Debian's packages, the trained-model packages): everything built
    (trees, modules, models, clips, injectors) starts cold."""
    root.mkdir()
    for d in SHARED:
        if (cache_root() / d).exists():
            (root / d).symlink_to(cache_root() / d)
    return root


def timed_make(target: str, cache: Path, log: Path, marks: dict) -> tuple[float, dict, int]:
    """`make TARGET` in a scratch cache, its stdout read as it comes: (seconds, the
    seconds at which the first stdout line matching each of `marks` appeared, exit)."""
    env = {**os.environ, "FFDNN_CACHE": str(cache), "BACKENDS": BACKENDS}
    env.pop("MAKEFLAGS", None)
    seen, t0 = {}, time.monotonic()
    with open(log, "w") as err, subprocess.Popen(["make", target], cwd=ROOT, env=env,
                                                 stdout=subprocess.PIPE, stderr=err,
                                                 text=True) as p:
        for line in p.stdout:
            err.write(line)
            for name in marked(line, marks):
                seen.setdefault(name, time.monotonic() - t0)
    return time.monotonic() - t0, seen, p.returncode


def marked(line: str, marks: dict) -> list:
    """The names of the marks (name -> pattern) a line of make's stdout matches."""
    return [name for name, pattern in marks.items() if re.search(pattern, line)]


def tail(path: Path, n=8) -> str:
    return " / ".join(path.read_text(errors="replace").strip().splitlines()[-n:])


COLD = ("P1", "P6", "P7")


def p1_cold_build(quick=False) -> list:
    """Cold, in scratch caches (scratch_cache): base alone (`harness build --tree base`);
    then `make` (the three trees, then the PR's tables), timed to the end of its build
    step (P1: all three trees) and to the first table line on stdout (P7); then `make
    test` in that same cache, the first after `make` (P6: the sanitizer variants, the
    trees the tests derive, the suite)."""
    names = {"P1": ("cold build, base+before+after over base alone", "x", 1.3),
             "P7": ("cold make to the first printed table", " s", 180),
             "P6": ("first make test after make (sanitizer variants + suite)", " s", 300)}
    if quick:
        return [{"id": k, "figure": n, "measured": None, "unit": u,
                 "target": f"≤ {t:g}{u}", "pass": None, "detail": "skipped (--quick)"}
                for k, (n, u, t) in names.items()]
    with tempfile.TemporaryDirectory(prefix="ffdnn-bench-cold-") as tmp:
        one = scratch_cache(Path(tmp) / "one")
        base_s = wall([PY, "-m", "harness", "build", "--backend", BACKENDS, "--tree", "base"],
                      env={"FFDNN_CACHE": str(one)})
        shutil.rmtree(one / "trees", ignore_errors=True)
        cache = scratch_cache(Path(tmp) / "all")
        log = RESULTS / "bench-cold-make.log"
        make_s, seen, rc = timed_make("all", cache, log, MAKE_MARKS)
        if rc != 0 or "table" not in seen:
            raise RuntimeError(f"cold make exited {rc} (see {log}): {tail(log)}")
        log_t = RESULTS / "bench-cold-make-test.log"
        test_s, seen_t, test_rc = timed_make("test", cache, log_t, TEST_MARKS)
        summary = pytest_summary(log_t.read_text(errors="replace"))
    return [figure("P1", names["P1"][0], seen["built"] / base_s, "x", 1.3,
                   detail=f"make's build step (venv and deps checks, three trees) "
                          f"{seen['built']:.1f} s, `harness build --tree base` alone "
                          f"{base_s:.1f} s, each in a scratch cache"),
            figure("P7", names["P7"][0], seen["table"], " s", 180,
                   detail=f"`make BACKENDS={BACKENDS}` in a scratch cache sharing "
                          f"{', '.join(SHARED)} (no wheel fetched; .venv exists): first "
                          f"table line at {seen['table']:.1f} s, make done at {make_s:.1f} s"),
            figure("P6", names["P6"][0], test_s, " s", 300,
                   detail=f"`make test` right after that `make`, same scratch cache: the "
                          f"sanitizer variants until {seen_t.get('suite', 0):.0f} s, then the "
                          f"suite (the trees it derives built the first time); exit status "
                          f"{test_rc}: {summary.strip('= ')}")]


def make_backends() -> str:
    """The BACKENDS `make test` will use: make's command line, the environment, the Makefile."""
    m = re.search(r"\bBACKENDS=(\S+)", os.environ.get("MAKEFLAGS", ""))
    default = re.search(r"^BACKENDS\s*\?=\s*(\S+)", (ROOT / "Makefile").read_text(), re.M)
    return m[1] if m else os.environ.get("BACKENDS") or (default[1] if default else "?")


def pytest_summary(out: str) -> str:
    """pytest's last line ("743 passed, 1 skipped in ..."), else the output's last line."""
    lines = out.strip().splitlines() or [""]
    return next((l for l in reversed(lines) if re.search(r"\d+ (passed|failed)", l)), lines[-1])


def p2_warm_matrix() -> list:
    wall([PY, *PR_TABLE])  # warm-up: modules, models, the page cache
    pytest_s = median(lambda: wall([PY, *PR_TABLE]))
    run_s = median(lambda: wall([PY, "-m", "harness", "run", "--build", "before,after",
                                 "--jobs", "2"]))
    t0 = time.monotonic()
    r = subprocess.run(["make", "test"], cwd=ROOT, capture_output=True, text=True)  # its BACKENDS
    make_s, summary = time.monotonic() - t0, pytest_summary(r.stdout)
    return [figure("P2a", "warm PR table (ONNX, before+after), pytest -n 2", pytest_s, " s", 5,
                   detail=f"{shlex.join(PR_TABLE[1:])}: median of 3, start-up included"),
            figure("P2b", "warm PR table, harness run --jobs 2", run_s, " s", 5,
                   detail="8 scenarios, median of 3"),
            figure("P2c", "warm make test (whole suite, -n 2)", make_s, " s", 60,
                   detail=f"once, BACKENDS={make_backends()}; exit status {r.returncode}: "
                          f"{summary.strip('= ')}")]


def build_c_floor(tree) -> Path:
    """dnn_floor.c against the tree's headers, linked to its static libraries with its
    config.mak's LDFLAGS and EXTRALIBS-*; into results/, never into the tree."""
    out = RESULTS / "floor_c" / f"{tree.name}-{tree.stamp['key'][:16]}"
    out.mkdir(parents=True, exist_ok=True)
    mak = ffi_build._config_mak(tree.src)
    libs = [str(tree.src / f"lib{n}/lib{n}.a") for n in ffi_build.LIBS
            if (tree.src / f"lib{n}/lib{n}.a").is_file()]
    link = shlex.split(mak.get("LDFLAGS", ""))
    for n in ffi_build.LIBS:
        link += [a for a in shlex.split(mak.get(f"EXTRALIBS-{n}", "")) if a not in link]
    subprocess.run(["cc", "-std=gnu11", "-O2", "-Wall", f"-I{tree.src}", "-o", out / "dnn_floor",
                    ROOT / "bench/floor_c/dnn_floor.c", *libs, *link, "-ldl"], check=True)
    return out / "dnn_floor"


def p3_per_scenario(n=5) -> list:
    """One scenario's wall time, through a fresh worker process (FFDNN_FORKSERVER=0, the
    way before the fork server) and through a fork server's child (kept across the runs,
    as a matrix keeps it), against the two floors; all interleaved in this run."""
    tree = Plan(BACKENDS, case().layout).get("after", build=False)
    (sc,) = matrix.scenarios([tree], "onnx", "dnn_processing", ["pthread_create=EAGAIN"])
    preload, exe = matrix.preload_library(), build_c_floor(tree)
    model = re.search(r":model=([^:]+)", sc.description)[1]  # the harness's own model
    env = {"LD_PRELOAD": preload, "PYTHONPATH": str(ROOT)}
    pool = forkclient.Pool()

    def harness_s(fork):
        os.environ["FFDNN_FORKSERVER"] = "1" if fork else "0"
        try:
            t0 = time.monotonic()
            r = runner.run_one(sc, preload, pool=pool, expect=case().expect)
            seconds = time.monotonic() - t0
        finally:
            os.environ.pop("FFDNN_FORKSERVER")
        passed([r], "fork server" if fork else "fresh (FFDNN_FORKSERVER=0)")
        return seconds
    floors = {"python": [PY, ROOT / "bench/floor_py.py", tree.path, model, "11"],
              "c": [exe, model, "11"]}
    want = runner.run_one(sc, preload, pool=pool, expect=case().expect).record.sink
    for name, cmd in floors.items():  # the floors must end the way the harness's run does
        out = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True)
        got = floor_sink(out.stdout)
        assert got == want, f"{name} floor: sink {got}, the harness's {want}: {out.stderr}"
    runs = {"fork": lambda: harness_s(True), "fresh": lambda: harness_s(False),
            **{k: lambda c=c: wall(c, env) for k, c in floors.items()}}
    try:
        times = [{k: f() for k, f in runs.items()} for _ in range(n + 1)]  # interleaved
    finally:
        pool.close()
    med = {k: statistics.median(t[k] for t in times[1:]) for k in runs}  # first: warm-up
    start = {w: median(lambda: wall([PY, "-c", w or "pass"]), 5)  # where the time goes
             for w in ("", "import numpy", "import harness.run.worker")}
    detail = (f"after / pthread_create=EAGAIN, median of {n}: harness through a fork server "
              f"{med['fork']:.3f} s, through a fresh process {med['fresh']:.3f} s, "
              f"python {med['python']:.3f} s, C {med['c']:.3f} s; "
              + ", ".join(f"python -c '{k or 'pass'}' {v:.3f} s" for k, v in start.items()))
    out = []
    for how, label in (("fork", "fork server"), ("fresh", "fresh process")):
        suffix = "" if how == "fork" else "-fresh"
        out += [figure(f"P3a{suffix}", f"per scenario ({label}), harness over bare Python",
                       med[how] / med["python"], "x", 1.2, detail=detail),
                figure(f"P3b{suffix}", f"per scenario ({label}), harness over C (tests/api "
                       "style)", med[how] / med["c"], "x", 1.5,
                       detail="C floor implements the stand-in flush, no recorder/log capture")]
    return out


def floor_sink(stdout: str) -> list:
    """The sink's codes a floor printed (`sink: [-11, ...]`, floor_py.py and dnn_floor.c)."""
    return [int(x) for line in stdout.splitlines() if line.startswith("sink:")
            for x in re.findall(r"-?\d+", line.split("(")[0])]


def passed(results, worker: str) -> None:
    """Every run PASS, each through `worker` (its record's worker: how it ran)."""
    bad = [(r.scenario.id, r.outcome.value, r.reason) for r in results
           if r.outcome.value != "PASS"]
    assert not bad, bad
    how = {r.record.worker for r in results}
    assert how == {worker}, f"runs through {how}, not {worker}"


def p4_throughput() -> list:
    """Scenarios per second through runner.run (the pool `harness run` uses), and the
    whole `harness run` wall, which adds its fixed start-up (imports, module checks);
    the runner also with FFDNN_FORKSERVER=0, the fresh process per scenario of before."""
    trees = [Plan(BACKENDS, case().layout).get(n, build=False) for n in ("before", "after")]
    scs = matrix.scenarios(trees, "onnx", "dnn_processing", P4_FAULTS)
    preload = matrix.preload_library()

    def pool(jobs, fork="1"):
        os.environ["FFDNN_FORKSERVER"] = fork
        try:
            t0 = time.monotonic()
            runner.run(scs, preload, jobs=jobs, expect=case().expect)
            return time.monotonic() - t0
        finally:
            os.environ.pop("FFDNN_FORKSERVER")
    cli = [PY, "-m", "harness", "run", "--build", "before,after"]
    cli += [a for f in P4_FAULTS for a in ("--fault", f)]
    t = {j: min(pool(j) for _ in range(2)) for j in (1, 2)}
    fresh = {j: min(pool(j, "0") for _ in range(2)) for j in (1, 2)}
    c = {j: min(wall(cli + ["--jobs", str(j)], check=False) for _ in range(2)) for j in (1, 2)}
    return [figure("P4a", "-j 2 throughput over -j 1, runner", t[1] / t[2], "x", 1.7, True,
                   f"{len(scs)} scenarios, two fork servers started in parallel: -j 1 "
                   f"{t[1]:.2f} s, -j 2 {t[2]:.2f} s, best of 2; a fresh process per "
                   f"scenario: -j 1 {fresh[1]:.2f} s, -j 2 {fresh[2]:.2f} s "
                   f"({fresh[1] / fresh[2]:.2f}x)"),
            figure("P4b", "-j 2 over -j 1, harness run wall", c[1] / c[2], "x", 1.7, True,
                   f"-j 1 {c[1]:.2f} s, -j 2 {c[2]:.2f} s, best of 2, start-up included")]


def p4c_servers_up(n=8) -> list:
    """Scheduling alone: many scenarios through fork servers already up (started, their
    imports done, one warm-up pass), at -j 1 and -j 2, alternating, best of 2."""
    trees = [Plan(BACKENDS, case().layout).get(n_, build=False) for n_ in ("before", "after")]
    scs = matrix.scenarios(trees, "onnx", "dnn_processing", P4_FAULTS) * n
    preload, pool = matrix.preload_library(), forkclient.Pool()
    try:
        for sc in scs:
            pool.server(sc, runner._env(sc, preload))
        for s in pool.servers.values():
            s.ready.wait(120)
        runner.run(scs[:len(scs) // n], preload, jobs=2, expect=case().expect, pool=pool)  # warm-up
        t = {1: [], 2: []}
        for _ in range(2):
            for j in (1, 2):
                t0 = time.monotonic()
                rs = runner.run(scs, preload, jobs=j, expect=case().expect, pool=pool)
                t[j].append(time.monotonic() - t0)
                passed(rs, "fork server")
    finally:
        pool.close()
    best = {j: min(v) for j, v in t.items()}
    return [figure("P4c", "-j 2 over -j 1, fork servers already up", best[1] / best[2], "x",
                   1.7, True, f"{len(scs)} scenarios ({len(P4_FAULTS)} faults x before, after x "
                   f"{n}) through two servers started and warmed before: -j 1 {best[1]:.2f} s "
                   f"({len(scs) / best[1]:.1f}/s), -j 2 {best[2]:.2f} s "
                   f"({len(scs) / best[2]:.1f}/s), best of 2")]


SWEEP_RATE = ("onnx", "dnn_processing", "wrap:ff_proc_from_dnn_to_frame=1*return(AVERROR(ENOMEM))")


def p8_sweeps() -> list:
    """P8a: a sweep's rate through its fork servers (their start and imports, the
    censuses, naming each site, every site run) against one of its scenarios' own cost
    (one site run alone through a server already up, median of 5), at -j 1 so the two
    compare; P8b: the ONNX Runtime malloc sweep as `make sweep` runs it (its command
    line, --jobs 2, artifacts of each unexpected hang kept in a scratch directory)."""
    from harness.experiments import sweep
    from harness.judge.sweep import problems
    backend, filt, fault = SWEEP_RATE
    trees = [Plan(BACKENDS, case().layout).get(n, build=False) for n in ("base", "before", "after")]
    scs = matrix.scenarios(trees, backend, filt, [fault], route="sweep")
    preload = matrix.preload_library()
    walls, found = {}, {}
    for jobs in (1, 2):
        t0 = time.monotonic()
        found[jobs] = sweep.sweep(scs, preload, jobs=jobs, expect=case().expect)
        walls[jobs] = time.monotonic() - t0
    assert not problems(found[1]), problems(found[1])
    runs, site = sweep_runs(found[1])
    pool = forkclient.Pool()
    try:
        runner.run_one(site, preload, pool=pool, expect=case().expect)  # the server, warm
        own = median(lambda: _seconds(lambda: runner.run_one(site, preload, pool=pool,
                                                             expect=case().expect)), 5)
    finally:
        pool.close()
    per_run = walls[1] / runs
    out = [figure("P8a", "sweep through the fork servers, wall per run over one scenario's "
                  "own cost", per_run / own, "x", 2,
                  detail=f"`{fault.split('=')[0]}` on {backend} / {filt}, base, before, "
                         f"after: {runs} runs (3 censuses, "
                         f"{runs - 3} sites) in {walls[1]:.2f} s at -j 1 ({per_run:.3f} s a run; "
                         f"-j 2 {walls[2]:.2f} s), one site alone through a server already up "
                         f"{own:.3f} s (median of 5)")]
    with tempfile.TemporaryDirectory(prefix="ffdnn-bench-sweep-") as tmp:
        cmd = [PY, "-m", "harness", "sweep", "--build", "before,after", "--backend-name",
               "onnx", "--fault", "malloc", "--jobs", "2", "--results", f"{tmp}/results",
               "--json", f"{tmp}/sweep.json"]
        t0 = time.monotonic()
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "FFDNN_BACKENDS": BACKENDS})
        malloc_s = time.monotonic() - t0
        data = readers.load(f"{tmp}/sweep.json", "sweep") if r.returncode in (0, 1) else None
    text = sweep_detail(data) if data else r.stderr[-300:]
    out.append(figure("P8b", "ONNX Runtime malloc sweep (before, after), wall", malloc_s, " s",
                      60, detail=f"`{shlex.join(cmd[1:12])}`, exit status {r.returncode}: "
                                 f"{text}"))
    return out


def sweep_runs(found: dict) -> tuple:
    """What P8a reads of sweep.sweep()'s build -> (count, [Site]): the runs it made (a
    census and each site, per build), and the scenario of after's first site."""
    return sum(len(sites) + 1 for _, sites in found.values()), found["after"][1][0].result.scenario


def sweep_detail(data: dict) -> str:
    """P8b's detail from a sweep's --json (readers.sweep): each build's sites and the
    classes of its runs, and the runs that hung."""
    builds = readers.sweep(data)
    several = len({b.key for b in builds}) > 1
    text = "; ".join(f"{f'{b.key} ' * several}{b.build} {b.sites} sites: " + (", ".join(
        f"{n} {k}" for k, n in sorted(Counter(r.cls for r in b.runs).items())) or "none run")
        for b in builds)
    hangs = [r.seconds for b in builds for r in b.runs if r.cls == "HANG"]
    return (f"{text}; {len(hangs)} HANG runs, {sum(hangs):.1f} s of run time "
            f"({statistics.median(hangs) if hangs else 0:.2f} s median)")


def p9_whole_diff(quick=False) -> list:
    """P9: the whole default diff (every family, every backend and filter both trees have,
    both routes) of after against after + the follow-ups, run at once and then as 4 shards
    one after another (each a CI matrix job's share; the longest is the matrix's critical
    path), and the merge of the shards against the whole, site by site."""
    ids = ("P9a", "P9b", "P9c", "P9d")
    if quick:
        return [{"id": i, "figure": "the whole default diff (skipped with --quick)",
                 "measured": None, "unit": "", "target": "", "pass": None, "detail": "",
                 "load": None} for i in ids]
    from harness.cases import followups
    patches = [str(followups.SERIES / n) for n in (followups.SERIES / "series").read_text().split()]
    base = [PY, "-m", "harness", "diff", "--from", "after", *sum((["--patch", p] for p in patches), []),
            "--results", "", "--fresh"]  # every run made: none kept from an earlier diff
    env = {**os.environ, "FFDNN_BACKENDS": BACKENDS}
    with tempfile.TemporaryDirectory(prefix="ffdnn-bench-diff-") as tmp:
        def run(extra, out):
            t0, load = time.monotonic(), os.getloadavg()[0]
            r = subprocess.run(base + extra + ["--json", out], cwd=ROOT, env=env,
                               capture_output=True, text=True)
            if r.returncode not in (0, 1, 3):
                raise RuntimeError(f"diff {shlex.join(extra)} exited {r.returncode}: "
                                   f"{r.stderr[-500:]}")
            return time.monotonic() - t0, load, readers.load(out, "diff")
        whole_s, whole_load, whole = run([], f"{tmp}/whole.json")
        shards = [run(["--shard", f"{k}/4"], f"{tmp}/shard{k}.json") for k in range(1, 5)]
        m = subprocess.run([PY, "-m", "harness", "merge", *[f"{tmp}/shard{k}.json" for k in range(1, 5)],
                            "--json", f"{tmp}/merged.json"], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        merged = (readers.load(f"{tmp}/merged.json", "diff")
                  if os.path.isfile(f"{tmp}/merged.json") else None)
        why = (m.stderr.strip().splitlines() or ["no output"])[-1]
    return p9_figures(whole_s, whole_load, whole, shards, m.returncode, merged, why)


def p9_figures(whole_s: float, whole_load: float, whole: dict, shards: list, merge_rc: int,
               merged: dict | None, merge_error: str = "") -> list:
    """P9's figures from the diffs' --json (readers.diff): the whole diff's, each shard's
    (wall, load at its start, its JSON) and the merge's (None when the merge wrote none:
    every site differs, and `merge_error` says why)."""
    w = readers.diff(whole)
    g = readers.diff(merged) if merged is not None else None
    for _, _, d in shards:
        readers.diff(d)
    t, c = w.timing, w.counts
    by = [{s[0][:1] + s[1:6]: s[6:] for s in x.sites} if x else {} for x in (w, g)]
    both = by[0].keys() & by[1].keys()
    flaky = {k for k in both if "flaky" in (by[0][k][0], by[1][k][0])}
    changed = {k for k in both - flaky if by[0][k][0] != by[1][k][0]}
    regressions = [{k for k, v in x.items() if v[0] == "regression"} for x in by]
    differ = len(regressions[0] ^ regressions[1]) if g else len(w.sites)
    walls = [s for s, _, _ in shards]
    n = len(shards)
    loads = ", ".join(f"{k + 1}/{n} {s:.0f} s (load {l:.1f})" for k, (s, l, _) in enumerate(shards))
    summary = (f"{w.word} (exit {w.exit_status}): judged {c['judged']} / blind "
               f"{c['blind']} / total {c['total']}; " + ", ".join(
                   f"{n} {k}" for k, n in w.verdict.items() if n))
    hung = t["hang_seconds"]
    hangs = (f"{len(w.hung)} site runs hung ({statistics.median(w.hung):.2f} s median)"
             if w.hung else "no site run hung")
    return [
        figure("P9a", "the whole default diff, after -> after + follow-ups, unsharded", whole_s,
               " s", 360, detail=f"{t['runs']} runs, {t['runs_per_second']:.2f} runs/s, runs "
               f"that hung {hung:.0f} s of run time of {hung + t['ended_seconds']:.0f} s "
               f"({hung / max(1e-9, hung + t['ended_seconds']):.0%}; {hangs}); "
               f"censuses {t['census_seconds']:.0f} s, sites {t['sites_seconds']:.0f} s, reruns "
               f"{t['confirm_seconds']:.0f} s; load {whole_load:.1f} at start; {summary}"),
        figure("P9b", f"{n} shards: the longest over the unsharded wall", max(walls) / whole_s,
               "x", 1 / 3, detail=f"shards one after another: {loads}"),
        figure("P9c", f"{n} shards: the longest over the shortest", max(walls) / min(walls),
               "x", 1.3, detail=loads),
        figure("P9d", "merge(shards) against the unsharded diff: regressions in one only",
               differ, "", 0,
               detail=(f"merge exit {merge_rc} ({g.word}), the whole diff's {w.exit_status}; "
                       f"{len(g.sites)} sites merged, {len(w.sites)} whole; by site (its group, "
                       f"place, nth and value): {len(both)} in both, {len(by[0].keys() - both)} "
                       f"in the whole only, {len(by[1].keys() - both)} in the merge only (their "
                       f"censuses counted differently), {len(changed)} judged differently, "
                       f"{len(flaky)} flaky in either" if g else
                       f"merge exit {merge_rc}, no JSON written: {merge_error}")),
    ]


def _seconds(f) -> float:
    t0 = time.monotonic()
    f()
    return time.monotonic() - t0


# P10's scope: one family on one backend's route, for the coverage variant's sweep against
# the plain tree's, and three mutants of the thread start's checks (one equivalent, two
# diffed: the second takes the tree's side of its diff from the first)
P10_SCOPE = ["--backend-name", "onnx", "--filter", "dnn_processing", "--route", "frames",
             "--fault", "malloc", "--results", ""]
P10_MUTATE = ["mutate", "--from", "after", "--file", "libavfilter/dnn/dnn_backend_common.c",
              "--function", "ff_dnn_start_inference_async", "--operator", "check-removed",
              "--limit", "3", "--backend-name", "onnx", "--filter", "dnn_processing",
              "--route", "flush", "--fault", "pthread_create", "--results", "",
              "--fresh"]  # every run made: none kept from an earlier command


def p10_gate_cost() -> list:
    """P10a: the coverage variant's sweep (`harness coverage`, every site's run counting
    what it ran) against the plain tree's sweep of the same scope (the variant built
    first, if it is not, and its build said apart); P10b: `harness mutate`'s wall per
    mutant it built and diffed."""
    env = {**os.environ, "FFDNN_BACKENDS": BACKENDS}
    with tempfile.TemporaryDirectory(prefix="ffdnn-bench-gate-") as tmp:
        def timed(args, out, command):
            t0 = time.monotonic()
            r = subprocess.run([PY, "-m", "harness", *args, "--json", out], cwd=ROOT, env=env,
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):
                raise RuntimeError(f"{shlex.join(args)} exited {r.returncode}: {r.stderr[-500:]}")
            return time.monotonic() - t0, readers.load(out, command)
        first, _ = timed(["coverage", "--tree", "after", *P10_SCOPE], f"{tmp}/c0.json", "coverage")
        plain, _ = timed(["sweep", "--build", "after", *P10_SCOPE], f"{tmp}/s.json", "sweep")
        counted, cov = timed(["coverage", "--tree", "after", *P10_SCOPE], f"{tmp}/c.json",
                             "coverage")
        mutate_s, mut = timed(P10_MUTATE, f"{tmp}/m.json", "mutate")
    return p10_figures(plain, counted, first, cov, mutate_s, mut)


def p10_figures(plain: float, counted: float, first: float, cov: dict, mutate_s: float,
                mut: dict) -> list:
    c, m = readers.coverage(cov), readers.mutate(mut)
    diffed = m.diffed
    per = statistics.mean(diffed) if diffed else 0.0
    fates = ", ".join(f"{n} {k}" for k, n in sorted(Counter(f for f, _ in m.fates).items()))
    return [figure("P10a", "coverage: the variant's sweep over the plain tree's, same scope",
                   counted / plain, "x", 2,
                   detail=f"`{shlex.join(P10_SCOPE[:8])}` on after: plain {plain:.1f} s, "
                          f"coverage {counted:.1f} s ({c.runs} runs; {c.taken} of {c.total} "
                          f"branches taken); the first coverage run, building the variant "
                          f"if it was not, {first:.1f} s"),
            figure("P10b", "mutate: wall per mutant built and diffed", per, " s", 120,
                   detail=f"`{shlex.join(P10_MUTATE[1:8])}`: {len(m.fates)} mutants ({fates}) "
                          f"in {mutate_s:.1f} s; diffed: "
                          f"{', '.join(f'{s:.0f} s' for s in diffed) or 'none'}; "
                          f"{m.reused_runs} runs of the tree taken from a diff before")]


def p5_noop_make() -> list:
    wall(["make", "build"])
    return [figure("P5", "no-op make build", median(lambda: wall(["make", "build"])), " s", 3,
                   detail="median of 3, everything cached")]


def markdown(figs) -> str:
    rows = ["| figure | measured | target | pass/fail | load |", "|---|---|---|---|---|"]
    for f in figs:
        got = "skipped" if f["measured"] is None else f"{f['measured']:.2f}{f['unit']}"
        verdict = "—" if f["pass"] is None else ("pass" if f["pass"] else "**fail**")
        load = f"{f['load']:.2f}" if f.get("load") is not None else "—"
        rows.append(f"| {f['id']} {f['figure']} | {got} | {f['target']} | {verdict} | {load} |")
    return "\n".join(rows) + "\n\n" + "\n".join(f"- {f['id']}: {f['detail']}" for f in figs)


def compare(old: dict, new: dict) -> str:
    before = {f["id"]: f for f in old["figures"]}
    rows = [f"| figure | {old['date']} | now | change |", "|---|---|---|---|"]
    for f in new["figures"]:
        o, n = before.get(f["id"], {}).get("measured"), f["measured"]
        change = f"{(n / o - 1) * 100:+.0f}%" if o and n else "—"
        rows.append(f"| {f['id']} | {'—' if o is None else o} | {'—' if n is None else n} "
                    f"| {change} |")
    return "\n".join(rows)


STEPS = ((p5_noop_make, ("P5",)), (p2_warm_matrix, ("P2a", "P2b", "P2c")),
         (p3_per_scenario, ("P3a", "P3b")), (p4_throughput, ("P4a", "P4b")),
         (p4c_servers_up, ("P4c",)), (p8_sweeps, ("P8a", "P8b")),
         (p9_whole_diff, ("P9a", "P9b", "P9c", "P9d")), (p10_gate_cost, ("P10a", "P10b")),
         (p1_cold_build, COLD))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="skip the cold figures (P1, P6, P7: scratch caches, about 15 min) "
                         "and the whole diff (P9)")
    ap.add_argument("--json", metavar="FILE", help="where to write (default results/bench.json)")
    ap.add_argument("--compare", metavar="OLD.json", help="print the changes against a run")
    ap.add_argument("--only", metavar="P3,P4c", help="only the steps that measure these "
                    "figures (a prefix: P4 is P4a, P4b and P4c)")
    args = ap.parse_args(argv)
    only = {x.strip().upper() for x in args.only.split(",")} if args.only else None
    RESULTS.mkdir(exist_ok=True)
    load0, figs = os.getloadavg(), []
    for step, ids in STEPS:
        if only and not any(i.upper().startswith(o) for i in ids for o in only):
            continue
        print(f"bench: {step.__name__} ...", file=sys.stderr, flush=True)
        figs += step(args.quick) if step in (p1_cold_build, p9_whole_diff) else step()
    figs.sort(key=lambda f: f["id"])  # P3a-fresh after P3a: the change beside its figure
    out = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "quick": args.quick,
           "backends": BACKENDS, "cpus": os.cpu_count(), "load_start": load0,
           "load_end": os.getloadavg(), "python": sys.version.split()[0], "figures": figs}
    print(markdown(figs))
    print(f"\nTrees: FFDNN_BACKENDS={BACKENDS}. {out['cpus']} CPUs; load average "
          f"{load0[0]:.2f} at start, {out['load_end'][0]:.2f} at end: timings are "
          "indicative when other work runs.")
    path = Path(args.json) if args.json else RESULTS / "bench.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written: {path}")
    if args.compare:
        print("\n" + compare(json.loads(Path(args.compare).read_text()), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
