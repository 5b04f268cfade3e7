"""`git intent install --editor NAME` prints each editor's configuration, `--write` adds it showing the diff,
and `uninstall --editor NAME` puts every byte back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli

from git_intent.lsp import EDITORS
from git_intent.lsp.editors import server_command


@pytest.fixture
def config_home(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = isolated_env / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    monkeypatch.setenv("XDG_STATE_HOME", str(isolated_env / "xdg-state"))
    return folder


@pytest.mark.parametrize("editor", EDITORS)
def test_install_prints_the_configuration_and_changes_nothing(
    editor: str, config_home: Path, isolated_env: Path
) -> None:
    proc = run_cli("install", "--editor", editor, cwd=isolated_env)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert server_command()[0] in proc.stdout and "lsp" in proc.stdout
    assert not config_home.exists() and not (isolated_env / ".emacs.d").exists()


def test_write_then_uninstall_restores_each_file_byte_for_byte(config_home: Path, isolated_env: Path) -> None:
    helix = config_home / "helix" / "languages.toml"
    helix.parent.mkdir(parents=True)
    original = b'[[language]]\nname = "python"\nlanguage-servers = ["pylsp"]\n\n# no newline at the end'
    helix.write_bytes(original)
    emacs = isolated_env / ".emacs.d" / "init.el"
    emacs.parent.mkdir()
    emacs.write_bytes(b"(setq inhibit-startup-screen t)\r\n")

    written = run_cli("install", "--editor", "helix", "--write", cwd=isolated_env)
    assert written.returncode == 0, written.stderr
    assert (
        f'+[language-server.git-intent]\n+command = "{server_command()[0]}"\n+args = ["lsp"]\n'
        in written.stdout
    )
    assert f"{helix}: added git-intent." in written.stdout
    assert 'language-servers = ["pylsp", "git-intent"]' in written.stdout  # how to attach it
    assert helix.read_bytes().startswith(original + b"\n\n# >>> git-intent")
    again = run_cli("install", "--editor", "helix", "--write", cwd=isolated_env)
    assert f"{helix}: already has git-intent; unchanged." in again.stdout

    assert run_cli("install", "--editor", "emacs", "--write", cwd=isolated_env).returncode == 0
    assert b";; >>> git-intent" in emacs.read_bytes() and b":add-on? t" in emacs.read_bytes()
    assert run_cli("install", "--editor", "neovim", "--write", cwd=isolated_env).returncode == 0
    plugin = config_home / "nvim" / "plugin" / "git-intent.lua"
    assert plugin.read_text().count("vim.lsp.start_client") == 1

    for editor in ("helix", "emacs", "neovim"):
        proc = run_cli("uninstall", "--editor", editor, cwd=isolated_env)
        assert proc.returncode == 0, proc.stderr
    assert helix.read_bytes() == original and emacs.read_bytes() == b"(setq inhibit-startup-screen t)\r\n"
    assert not (config_home / "nvim").exists()  # install created the folders too
    gone = run_cli("uninstall", "--editor", "neovim", cwd=isolated_env)
    assert gone.stdout == "git-intent was not in neovim's configuration; nothing changed.\n"


def test_uninstall_after_the_user_edited_the_file_removes_only_the_block(
    config_home: Path, isolated_env: Path
) -> None:
    helix = config_home / "helix" / "languages.toml"
    helix.parent.mkdir(parents=True)
    helix.write_text('[editor]\nline-number = "relative"\n', encoding="utf-8")
    assert run_cli("install", "--editor", "helix", "--write", cwd=isolated_env).returncode == 0
    with helix.open("a", encoding="utf-8") as handle:
        handle.write('\n[[language]]\nname = "go"\nlanguage-servers = ["gopls", "git-intent"]\n')
    proc = run_cli("uninstall", "--editor", "helix", cwd=isolated_env)
    assert "removed the git-intent block (the file changed since install" in proc.stdout
    assert helix.read_text(encoding="utf-8") == (
        '[editor]\nline-number = "relative"\n\n[[language]]\nname = "go"\n'
        'language-servers = ["gopls", "git-intent"]\n'
    )


@pytest.mark.parametrize("editor", ["zed", "vscode"])
def test_write_for_an_editor_without_a_config_file_says_so(
    editor: str, config_home: Path, isolated_env: Path
) -> None:
    proc = run_cli("install", "--editor", editor, "--write", cwd=isolated_env)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        f"error: {editor} has no configuration file git-intent can write a language server into."
    )
    assert run_cli("install", "--write", cwd=isolated_env).returncode == 2
    assert os.listdir(isolated_env) == [".gitconfig"] or not config_home.exists()


def test_a_second_install_writes_the_block_again_with_the_current_command(
    config_home: Path, isolated_env: Path
) -> None:
    """After the venv moved, `install --editor` replaces its block instead of keeping the stale command."""
    helix = config_home / "helix" / "languages.toml"
    helix.parent.mkdir(parents=True)
    helix.write_text('[editor]\nline-number = "relative"\n', encoding="utf-8")
    assert run_cli("install", "--editor", "helix", "--write", cwd=isolated_env).returncode == 0
    fresh = helix.read_text(encoding="utf-8")
    helix.write_text(fresh.replace(server_command()[0], "/gone/venv/bin/git-intent"), encoding="utf-8")
    proc = run_cli("install", "--editor", "helix", "--write", cwd=isolated_env)
    assert proc.returncode == 0, proc.stderr
    assert '-command = "/gone/venv/bin/git-intent"' in proc.stdout
    assert helix.read_text(encoding="utf-8") == fresh
