"""The JSON every command writes (--json): one envelope, then the command's own data.

    {"schema": ENVELOPE, "tool": "ffmpeg-dnn-fault-harness", "version": ..., "command": ...,
     "trees": [{"name", "key", "path"}, ...], "exit_status": N, <the command's fields>}

`trees` are the trees the command ran on, each by the key of its cache entry (what makes two
reports of the same trees); `exit_status` is the status the command returned."""

from harness import __version__

ENVELOPE = 3  # the diff's JSON was schema 2 before every command shared this one
TOOL = "ffmpeg-dnn-fault-harness"


def tree_json(tree) -> dict:
    return {"name": tree.name, "key": tree.key, "path": str(tree.path)}


def envelope(command: str, trees: list, exit_status: int, **data) -> dict:
    return {"schema": ENVELOPE, "tool": TOOL, "version": __version__, "command": command,
            "trees": [t if isinstance(t, dict) else tree_json(t) for t in trees],
            "exit_status": exit_status, **data}


def is_envelope(d, command: str | None = None) -> bool:
    return (isinstance(d, dict) and d.get("tool") == TOOL and d.get("schema") == ENVELOPE
            and (command is None or d.get("command") == command))
