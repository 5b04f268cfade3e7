"""Every non-Python file the package reads at run time ships in the wheel (editable installs hide this)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_package_data_globs_cover_every_data_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["git_intent"]
    package = ROOT / "git_intent"
    data = [
        p.relative_to(package).as_posix()
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert data, "expected the hook shims and demo data in the package"
    missing = [
        f
        for f in data
        if not any(fnmatch.fnmatch(f, g) or fnmatch.fnmatch(f, g.replace("**/", "")) for g in globs)
    ]
    assert not missing, f"not shipped in the wheel: {missing}"


def test_hook_shims_ship_from_the_top_level_hooks_folder() -> None:
    """hooks/ holds the shims users and hook managers see; the package carries them through hook_shims/."""
    shims = ROOT / "git_intent" / "hook_shims"
    assert shims.resolve() == (ROOT / "hooks").resolve()
    assert sorted(p.name for p in (ROOT / "hooks").iterdir()) == [
        "post-checkout",
        "post-commit",
        "post-merge",
        "post-rewrite",
        "pre-push",
    ]
    from importlib import resources

    shim = resources.files("git_intent").joinpath("hook_shims", "post-commit").read_text(encoding="utf-8")
    assert shim == (ROOT / "hooks" / "post-commit").read_text(encoding="utf-8")
