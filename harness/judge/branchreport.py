"""`harness coverage`'s reports: Markdown (stdout), the JSON (docs/schema/coverage.json)
and one self-contained HTML page (inline CSS, no script, nothing fetched)."""

from html import escape

from harness.judge.branchcov import NO_CODE, NOT_TAKEN, TAKEN, Report

HOW = "each call of every family failed once, with the first value of its profile"


def _where(s) -> str:
    b = s.branch
    head = {"else": "", "case": "", "catch": "catch ", "macro": ""}.get(b.kind, "if ")
    cond = b.condition if b.kind != "if" else f"({b.condition})"
    return f"`{b.path}:{b.line}` {b.function}: `{head}{cond}`"


def headline(r: Report) -> str:
    t = r.totals()
    a = t["armed"]
    return (f"**{t['taken']} of {t['total'] - t['no_code']} error branches taken by a fault "
            f"({t['percent']}%)**; of the others {t['input']} only another input reaches (a "
            f"model, an option, a file the graphs do not use) and {t['unreachable']} nothing "
            f"reaches, each explained (`{r.data_file}`): {t['percent_reachable']}% of those a "
            f"fault can reach. In the functions that ran while a fault was armed: "
            f"**{a['taken']} of the {a['total'] - a['unreachable'] - a['input']} a fault can "
            f"reach ({a['percent_reachable']}%)**; "
            f"the other {t['total'] - t['no_code'] - a['total']} are in functions that run only before "
            "the fault is armed or after (loading the model, configuring the filter, "
            "freeing it)")


def markdown(r: Report) -> str:
    t = r.totals()
    out = [f"## Error-branch coverage of the DNN code: {r.tree.name}", "",
           headline(r) + ".", "",
           f"The sweep ({HOW}): {len(r.groups)} families x pairs x routes, "
           f"{r.runs} runs in {r.seconds.get('sweep', 0):.0f} s; the sites' classes: "
           + (", ".join(f"{n} {c}" for c, n in sorted(r.classes.items())) or "none") + ".", "",
           "| file | error branches | taken | not taken | only another input reaches "
           "| nothing reaches | not compiled | taken of those a fault can reach "
           "| in functions run armed: taken / branches |",
           "|---|---|---|---|---|---|---|---|---|"]
    files = r.by_file()
    for path, fns in files.items():
        f = r.totals([s for ss in fns.values() for s in ss])
        out.append(f"| `{path}` | {f['total']} | {f['taken']} | {f['not_taken']} | "
                   f"{f['input']} | {f['unreachable']} | {f['no_code']} | "
                   f"{f['percent_reachable']}% | {f['armed']['taken']} / {f['armed']['total']} |")
    out.append(f"| all | {t['total']} | {t['taken']} | {t['not_taken']} | {t['input']} | "
               f"{t['unreachable']} | {t['no_code']} | {t['percent_reachable']}% | "
               f"{t['armed']['taken']} / {t['armed']['total']} |")
    out += ["", "### By function", "", "| file | function | ran armed | taken / error "
            "branches | not taken (lines) |", "|---|---|---|---|---|"]
    for path, fns in files.items():
        for fn, ss in fns.items():
            missed = [str(s.branch.line) for s in ss if s.status == NOT_TAKEN and not s.unreachable]
            taken = sum(s.status == TAKEN for s in ss)
            out.append(f"| `{path}` | {fn} | {'yes' if ss[0].armed else 'no'} | {taken} / "
                       f"{len(ss)} | {', '.join(missed) or '—'} |")
    missed = lambda s: s.status == NOT_TAKEN and not s.unreachable  # noqa: E731
    for title, pick in (("Not taken by any fault, in functions that ran while one was armed",
                         lambda s: missed(s) and s.armed),
                        ("Not taken: in functions that never ran while a fault was armed",
                         lambda s: missed(s) and not s.armed),
                        ("Only another input reaches (no failed call)",
                         lambda s: s.needs_input and s.status != TAKEN),
                        ("Nothing reaches", lambda s: s.unreachable and not s.needs_input
                         and s.status != TAKEN),
                        ("Not compiled (gcov has no line of them)", lambda s: s.status == NO_CODE)):
        picked = [s for s in r.seen if pick(s)]
        if picked:
            out += ["", f"### {title} ({len(picked)})", ""]
            out += [f"- {_where(s)}" + (f": {s.unreachable}" if s.unreachable else
                                       f" ({'; '.join(s.branch.why)})") for s in picked]
    problems = problem_lines(r)
    if problems:
        out += ["", f"### Problems ({len(problems)})", ""] + [f"- {p}" for p in problems]
    if r.stale:
        out += ["", f"### Entries of the data file no branch of this tree has ({len(r.stale)})",
                ""] + [f"- `{k}`" for k in r.stale]
    return "\n".join(out) + "\n"


def problem_lines(r: Report) -> list:
    return ([f"{_where(s)}: the data file says no fault reaches it, but a fault took it "
             f"({s.count} times)" for s in r.wrong] + list(r.census_errors))


def to_json(r: Report) -> dict:
    def fn_json(name, ss):
        return {"name": name, **r.totals(ss)}
    return {
        "how": HOW,
        "groups": r.groups, "runs": r.runs, "seconds": r.seconds,
        "classes": dict(r.classes),
        "summary": r.totals(),
        "files": [{"path": path, **r.totals([s for ss in fns.values() for s in ss]),
                   "functions": [fn_json(n, ss) for n, ss in fns.items()]}
                  for path, fns in r.by_file().items()],
        "branches": [{"path": s.branch.path, "function": s.branch.function,
                      "line": s.branch.line, "first": s.branch.first, "kind": s.branch.kind,
                      "condition": s.branch.condition, "why": list(s.branch.why),
                      "key": s.key, "status": s.status, "count": s.count, "armed": s.armed,
                      "unreachable": s.unreachable or None} for s in r.seen],
        "data_file": {"path": r.data_file, "stale": r.stale},
        # what `harness mutate --lines` reads: the sources these lines are of, and per file
        # the lines of code that ran under a fault and those none ran
        "source_tree": r.tree.stamp.get("source_tree"),
        "lines": {p: {"run": run, "not_run": not_run} for p, (run, not_run) in r.lines.items()},
        "problems": problem_lines(r),
    }


COLOUR = {TAKEN: "#2f9e5b", NOT_TAKEN: "#d64541", "another input": "#c98a1b",
          "unreachable": "#7f8c8d", NO_CODE: "#b0b7bf"}
CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1f24; }
h1 { font-size: 20px; } h2 { font-size: 15px; margin: 22px 0 6px; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0 14px; }
td, th { border: 1px solid #d0d7de; padding: 3px 6px; text-align: left; vertical-align: top; }
code { font: 11px ui-monospace, monospace; }
.bar { display: inline-block; height: 10px; background: #d64541; width: 160px; }
.bar span { display: block; height: 10px; background: #2f9e5b; }
.k { display: inline-block; padding: 0 5px; border-radius: 3px; color: #fff; font-weight: 600; }
"""


def _state(s) -> str:
    if s.unreachable and s.status != TAKEN:
        return "another input" if s.needs_input else "unreachable"
    return s.status


def page(r: Report) -> str:
    files = r.by_file()
    rows = []
    for path, fns in files.items():
        f = r.totals([s for ss in fns.values() for s in ss])
        rows.append(f'<tr><td><a href="#{escape(path)}"><code>{escape(path)}</code></a></td>'
                    f"<td>{f['total']}</td><td>{f['taken']}</td><td>{f['not_taken']}</td>"
                    f"<td>{f['input']}</td><td>{f['unreachable']}</td><td>{f['no_code']}</td>"
                    f'<td><span class="bar"><span style="width:{f["percent_reachable"]}%">'
                    f"</span></span> {f['percent_reachable']}%</td>"
                    f"<td>{f['armed']['taken']} / {f['armed']['total']}</td></tr>")
    body = [f"<h1>Error-branch coverage: {escape(r.tree.name)}</h1>",
            f"<p>{escape(headline(r).replace('**', '').replace('`', ''))}.</p>",
            f"<p>The sweep: {escape(HOW)}; {r.runs} runs.</p>",
            "<p>" + " ".join(f'<span class="k" style="background:{c}">{escape(n)}</span>'
                             for n, c in COLOUR.items()) + "</p>",
            "<table><tr><th>file</th><th>error branches</th><th>taken</th><th>not taken</th>"
            "<th>only another input reaches</th><th>nothing reaches</th><th>not compiled</th>"
            "<th>taken of reachable</th>"
            "<th>in functions run armed: taken / branches</th></tr>",
            *rows, "</table>"]
    for path, fns in files.items():
        body.append(f'<h2 id="{escape(path)}">{escape(path)}</h2><table><tr><th>line</th>'
                    "<th>function</th><th>ran armed</th><th>branch</th><th>what makes it one</th>"
                    "<th>state</th></tr>")
        for fn, ss in fns.items():
            for s in ss:
                st = _state(s)
                note = f": {escape(s.unreachable)}" if s.unreachable else ""
                body.append(f"<tr><td>{s.branch.line}</td><td>{escape(fn)}</td>"
                            f"<td>{'yes' if s.armed else 'no'}</td>"
                            f"<td><code>{escape(s.branch.kind)} {escape(s.branch.condition)}</code>"
                            f"</td><td><code>{escape('; '.join(s.branch.why))}</code></td>"
                            f'<td><span class="k" style="background:{COLOUR[st]}">{escape(st)}'
                            f"</span>{note}</td></tr>")
        body.append("</table>")
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>Error-branch coverage: "
            f"{escape(r.tree.name)}</title><style>{CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
