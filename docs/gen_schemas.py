"""Regenerate docs/schemas/NAME.json (JSON Schema draft 2020-12) from the models the commands print.

Run: .venv/bin/python docs/gen_schemas.py   (tests/test_schemas.py fails when a schema is stale)
"""

from __future__ import annotations

import json
from pathlib import Path

from git_intent.schemas import available, json_schema

OUT = Path(__file__).with_name("schemas")


def render() -> dict[str, str]:
    """File name -> text of every schema this build has (sorted keys, 2-space indent, final newline)."""
    return {
        f"{name}.json": json.dumps(json_schema(name), indent=2, ensure_ascii=False) + "\n"
        for name in available()
    }


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    files = render()
    for stale in OUT.glob("*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} schemas to {OUT}")
