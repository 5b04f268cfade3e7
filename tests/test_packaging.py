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


def test_the_distribution_has_a_name_of_its_own_and_the_command_keeps_its_own() -> None:
    """`git-intent` on PyPI is another project (its releases are not this one), so `pip install git-intent`
    installed something else: the distribution is `git-intent-provenance`, the README's install lines say
    so, and the `git intent` command, its console script and the `git_intent` package keep their names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["name"] == "git-intent-provenance"
    assert config["project"]["scripts"]["git-intent"] == "git_intent.launch:main"
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["git_intent*"]
    from importlib.metadata import distribution

    installed = distribution("git-intent-provenance")
    assert "git-intent" in {
        entry.name for entry in installed.entry_points if entry.group == "console_scripts"
    }
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    installs = [line for line in readme.splitlines() if "pip install" in line and "-e" not in line]
    assert installs and all(
        "git-intent-provenance" in line or "pip install -q ." in line for line in installs
    ), installs
