"""The code stays typed and lint-clean: mypy --strict and ruff over the package, and the
layers of docs/design.md hold (import-linter's contracts in .importlinter)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("tool", [["mypy", "git_intent"], ["ruff", "check", "git_intent"], ["lint-imports"]])
def test_static_checks(tool: list[str]) -> None:
    exe = shutil.which(tool[0], path=str(Path(sys.executable).parent))
    assert exe is not None, f"{tool[0]} is not installed (pip install -e '.[test]')"
    proc = subprocess.run([exe, *tool[1:]], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
