"""The diff as one self-contained page (inline CSS, no script, nothing fetched): per
family and backend/filter a grid with a column per site and a row per tree, each cell
coloured by the site's class and linking to the site's entry below, which holds the
command that reruns it in each tree; a marker row says which sites regressed or were
fixed. Hovering a cell shows where the call is made and its command."""

from html import escape

from harness.judge.diff import Change
from harness.judge.diffreport import blind_lines, output_lines, timing, verdict_line

COLUMNS = 48  # sites per grid block; a wider family continues in the next block
COLOURS = {  # class -> (background, text); letters keep the grid readable without colour
    "SURFACED": ("#2f9e5b", "#fff"), "CLEAN": ("#cde8d4", "#1d4d2b"),
    "LOST": ("#f39c34", "#000"), "DROPPED": ("#f1d04b", "#000"),
    "ALTERED": ("#9b59b6", "#fff"), "HANG": ("#d64541", "#fff"),
    "CRASH": ("#6e1414", "#fff"), "ERROR": ("#7f8c8d", "#fff"),
}
LETTER = {"SURFACED": "S", "CLEAN": "C", "LOST": "L", "DROPPED": "D", "ALTERED": "A",
          "HANG": "H", "CRASH": "X", "ERROR": "E"}
MARK = {Change.REGRESSION: ("&#9660;", "reg"), Change.FIX: ("&#9650;", "fix"),
        Change.CHANGED: ("&#8226;", "chg"), Change.ONLY_FROM: ("&#9702;", "only"),
        Change.ONLY_TO: ("&#9702;", "only"), Change.ERROR: ("?", "err"), Change.SAME: ("", ""),
        Change.FLAKY: ("~", "chg")}

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1f24; }
h1 { font-size: 20px; margin: 0 0 6px; } h2 { font-size: 15px; margin: 22px 0 6px; }
.verdict { font-size: 15px; margin: 6px 0 12px; } .pass b { color: #2f9e5b; }
.fail b { color: #c0392b; } .blind b { color: #b9770e; }
.grid a.t { box-shadow: inset 0 -3px 0 #1b1f24; }
.legend span { display: inline-block; padding: 1px 6px; margin: 0 4px 4px 0;
  border-radius: 3px; font-size: 12px; }
.grid { display: grid; gap: 2px; align-items: center; justify-content: start;
  margin: 4px 0 10px; }
.grid .name { font-size: 12px; white-space: nowrap; padding-right: 8px; text-align: right;
  width: 200px; overflow: hidden; text-overflow: ellipsis; }
.grid a.c { display: block; width: 16px; height: 16px; border-radius: 2px; font-size: 10px;
  line-height: 16px; text-align: center; text-decoration: none; font-weight: 600; }
.grid a.c:hover { outline: 2px solid #1b1f24; }
.grid .none { width: 16px; height: 16px; background: repeating-linear-gradient(45deg,
  #eee, #eee 3px, #fff 3px, #fff 6px); border-radius: 2px; }
.grid .m { width: 16px; text-align: center; font-size: 11px; line-height: 12px; }
.reg { color: #c0392b; } .fix { color: #2f9e5b; } .chg { color: #b9770e; }
.only, .err { color: #566573; }
table { border-collapse: collapse; font-size: 12px; margin-top: 6px; }
td, th { border: 1px solid #d0d7de; padding: 3px 6px; vertical-align: top; text-align: left; }
tr:target { background: #fff4c2; outline: 2px solid #f1c40f; }
code { font: 11px ui-monospace, monospace; word-break: break-all; }
.k { display: inline-block; padding: 0 5px; border-radius: 3px; font-weight: 600; }
.empty { color: #566573; font-size: 12px; }
"""


def _k(cls: str) -> str:
    bg, fg = COLOURS[cls]
    return f'<span class="k" style="background:{bg};color:{fg}">{cls}</span>'


def _cell(n: int, site, label: str, p) -> str:
    if site is None:
        return f'<div class="none" title="{escape(label)}: no such call"></div>'
    bg, fg = COLOURS[site.cls.value]
    touched = f"\nthe change's {p.touched} is on its stack" if p.touched else ""
    blind = "\nblind: HANG or CRASH in both trees" if p.blind else ""
    tip = f"{label}: {site.cls.value} ({p.value})\n{p.where}{touched}{blind}\n{site.command}"
    css = "c t" if p.touched else "c"
    return (f'<a class="{css}" href="#s{n}" style="background:{bg};color:{fg}" '
            f'title="{escape(tip)}">{LETTER[site.cls.value]}</a>')


def _grid(d, numbered) -> list:
    out = []
    for start in range(0, len(numbered), COLUMNS):
        block = numbered[start:start + COLUMNS]
        cols = f"grid-template-columns: 208px repeat({len(block)}, 16px)"
        cells = []
        for i, side in enumerate(d.sides):
            cells.append(f'<div class="name" title="{escape(side.label)}">'
                         f'{escape(side.label)}</div>')
            cells += [_cell(n, p.sites[i], side.label, p) for n, p in block]
        cells.append('<div class="name"></div>')
        for n, p in block:
            sym, css = MARK[p.change]
            cells.append(f'<div class="m {css}" title="{p.change.value}">{sym}</div>')
        out.append(f'<div class="grid" style="{cols}">' + "".join(cells) + "</div>")
    return out


def _rows(d, numbered) -> list:
    out = []
    for n, p in numbered:
        cls = ["" if s is None else " ".join(_k(c.value) for c in p.seen[i]) if
               len(set(p.seen[i])) > 1 else _k(s.cls.value) for i, s in enumerate(p.sites)]
        cmds = "<br>".join(f"{escape(d.sides[i].label)}: <code>{escape(s.command)}</code>"
                           for i, s in enumerate(p.sites) if s is not None)
        sym, css = MARK[p.change]
        nth = f" #{p.nth + 1}" if p.nth else ""
        notes = (" (blind)" if p.blind else "") + (f" (touched {p.touched})" if p.touched else "")
        out.append(f'<tr id="s{n}"><td>{n}</td><td class="{css}">{sym} {p.change.value}'
                   f"{notes}</td><td>{escape(p.group.route)}</td>"
                   f"<td><code>{escape(p.value)}</code></td>"
                   f"<td><code>{escape(p.where)}</code>{nth}</td><td>{cls[0] or '—'}</td>"
                   f"<td>{cls[1] or '—'}</td><td>{cmds}</td></tr>")
    return out


def page(d) -> str:
    a, b = (escape(s.label) for s in d.sides)
    verdict = verdict_line(d).replace("**", "")
    word, rest = verdict.split(":", 1)
    body = [f"<h1>Fault sweep diff: {a} &rarr; {b}</h1>",
            f'<div class="verdict {word.lower()}"><b>{word}</b>:{escape(rest)}</div>',
            '<div class="legend">' + "".join(_k(c) for c in COLOURS) +
            '<span class="reg">&#9660; regression</span><span class="fix">&#9650; fix'
            '</span><span class="chg">&#8226; changed ~ flaky</span><span class="only">&#9702; '
            "in one tree only</span><span>underlined: its stack runs through the change"
            "</span></div>"]
    body += [f"<p>{escape(line.replace('`', ''))}</p>" for line in blind_lines(d)]
    body += [f"<p class='empty'>{escape(e)}</p>" for e in d.census_errors]
    body += [f"<p class='empty'>{escape(line.replace('`', ''))}</p>" for line in output_lines(d)]
    numbered = list(enumerate(d.pairs, 1))
    empty = []
    for g in d.groups:
        mine = [(n, p) for n, p in numbered if p.group is g]
        if not mine:
            empty.append(g.key)
            continue
        counts = " / ".join("—" if x is None else str(x) for x in g.sites)
        body.append(f"<h2>{escape(g.key)} <span class='empty'>({counts} sites)</span></h2>")
        body += _grid(d, mine)
    if empty:
        body.append("<p class='empty'>No calls in either tree: " +
                    ", ".join(escape(k) for k in empty) + "</p>")
    changed = [(n, p) for n, p in numbered if p.change is not Change.SAME]
    body += ["<h2>Sites and their reproducers</h2>",
             "<table><tr><th>#</th><th>change</th><th>route</th><th>value</th><th>where</th>"
             f"<th>{a}</th><th>{b}</th><th>reproduce</th></tr>"]
    body += _rows(d, changed + [(n, p) for n, p in numbered if p.change is Change.SAME])
    body.append("</table>")
    body.append(f"<p class='empty'>{escape(timing(d))}</p>")
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>Fault sweep diff: {a} -&gt; {b}</title><style>{CSS}</style></head>"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n")
