"""The schemas of the JSON the commands write (docs/schema/*.json, JSON Schema draft
2020-12; an installed package carries them, harness/paths.py): which one a document is
checked against, and the one line that says where a document breaks its schema. The
tests check real outputs with them; merge checks every shard it reads."""

import json
from functools import cache

from harness.paths import data_dir

# a document's command (the envelope's `command`) -> its schema's file
BY_COMMAND = {"run": "run.json", "table": "run.json", "sweep": "sweep.json",
              "diff": "diff.json", "claims": "claims.json", "coverage": "coverage.json",
              "mutate": "mutate.json"}


def names() -> list:
    return sorted(p.name for p in data_dir("schema").glob("*.json"))


@cache
def _registry():
    from referencing import Registry, Resource
    return Registry().with_resources(
        (name, Resource.from_contents(json.loads((data_dir("schema") / name).read_text())))
        for name in names())


def validator(name: str):
    """A validator of the schema file `name` of docs/schema/, or of a part of one
    (`run.json#/$defs/result`), its $refs to the other files resolved."""
    from jsonschema import Draft202012Validator
    schema = {"$ref": name} if "#" in name else _registry().contents(name)
    return Draft202012Validator(schema, registry=_registry())


def schema_of(doc) -> str:
    """The schema a command's document is checked against (by its command; the
    envelope's own when the command is none of BY_COMMAND)."""
    command = doc.get("command") if isinstance(doc, dict) else None
    return BY_COMMAND.get(command, "envelope.json")


def problem(doc, name: str | None = None) -> str | None:
    """None when `doc` is valid against its schema (`name`, else its command's), else
    one line: where (a JSON path) and what."""
    from jsonschema.exceptions import best_match
    err = best_match(validator(name or schema_of(doc)).iter_errors(doc))
    if err is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return f"{where.lstrip('.') or 'the document'}: {err.message}"
