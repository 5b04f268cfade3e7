"""Each editor's client configuration for `git intent lsp`, printed by `git intent install --editor NAME` and,
with `--write`, added to the editor's user config (and taken out again by `uninstall --editor`).

- neovim: `$XDG_CONFIG_HOME/nvim/plugin/git-intent.lua` (default `~/.config`), a file of its own that Neovim
  0.7+ sources at start: one client for every file buffer (`vim.lsp.start_client` + `buf_attach_client`).
- helix: `$XDG_CONFIG_HOME/helix/languages.toml`, a `[language-server.git-intent]` table in a marked block;
  Helix attaches a server only to languages whose `language-servers` list names it (the note says how).
- emacs: `~/.emacs.d/init.el` (or `$XDG_CONFIG_HOME/emacs/init.el` when that exists), a marked block that
  registers an lsp-mode add-on client (beside the language's own server) and `M-x git-intent-eglot`.
- zed, vscode: both start language servers only from extensions, so there is no file to write; the snippet
  says what to configure in a generic LSP-client extension.

Install records the bytes each file had; uninstall puts them back byte for byte when the file is as install
left it, and otherwise removes only the marked block (or our own file). The record lives in
`$XDG_STATE_HOME/git-intent/editors/` (default `~/.local/state`).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..capture.user_config import InstallRecord, config_diff, read_config, user_state_file, write_config
from ..core.errors import IntentError
from . import EDITORS

BEGIN = ">>> git-intent (git intent uninstall --editor {editor} removes this block) >>>"
END = "<<< git-intent <<<"


@dataclass(frozen=True)
class EditorConfig:
    """Where an editor's configuration goes (None: nowhere git-intent can write), the text to add, the
    comment leader for the block's markers ("" for a file of our own), and what the user still has to do."""

    editor: str
    path: Path | None
    text: str
    comment: str
    note: str


@dataclass(frozen=True)
class Change:
    """What install or uninstall did to one file: a sentence and the unified diff (empty when unchanged)."""

    sentence: str
    diff: str


def server_command() -> list[str]:
    """This installation's absolute command (editors start servers without the user's shell PATH)."""
    script = Path(sys.executable).with_name("git-intent")
    return [str(script), "lsp"] if script.is_file() else [sys.executable, "-m", "git_intent", "lsp"]


def editor_config(editor: str) -> EditorConfig:
    """The configuration for `editor`. Raises IntentError for an editor git-intent does not know."""
    command = server_command()
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    if editor == "neovim":
        text = _NEOVIM.replace("COMMAND", _lua_list(command))
        return EditorConfig(
            editor,
            config / "nvim" / "plugin" / "git-intent.lua",
            text,
            "",
            "Restart Neovim: hover (K) shows why a line is there; :lua vim.lsp.codelens.refresh() shows "
            "the code lenses.",
        )
    if editor == "helix":
        text = (
            f"[language-server.git-intent]\ncommand = {json.dumps(command[0])}\n"
            f"args = {json.dumps(command[1:])}\n"
        )
        return EditorConfig(
            editor,
            config / "helix" / "languages.toml",
            text,
            "#",
            'Helix attaches servers per language: add "git-intent" to a language\'s list, e.g.\n'
            '[[language]]\nname = "python"\nlanguage-servers = ["pylsp", "git-intent"]',
        )
    if editor == "emacs":
        xdg = config / "emacs" / "init.el"
        path = xdg if xdg.is_file() else Path.home() / ".emacs.d" / "init.el"
        text = _EMACS.replace("COMMAND", " ".join(json.dumps(part) for part in command))
        return EditorConfig(
            editor,
            path,
            text,
            ";;",
            "lsp-mode runs git-intent beside each language's server; with eglot (one server per buffer) "
            "use M-x git-intent-eglot where you want it.",
        )
    if editor in ("zed", "vscode"):
        name = "Zed" if editor == "zed" else "VS Code"
        text = json.dumps({"command": command[0], "args": command[1:], "languages": ["*"]}, indent=2) + "\n"
        return EditorConfig(
            editor,
            None,
            text,
            "",
            f"{name} starts language servers only from extensions: give this command to a generic "
            f"LSP-client extension (git-intent ships none yet), for every language you read.",
        )
    raise IntentError(
        f"git-intent does not know the editor {editor!r}.", hint=f"Known editors: {', '.join(EDITORS)}."
    )


def install_editor(editor: str) -> Change:
    """Add git-intent's client configuration to `editor`'s user config. Raises IntentError for an editor with
    no file to write (zed, vscode) or a file that cannot be read or written (it is left untouched)."""
    config = _writable(editor_config(editor))
    assert config.path is not None
    current = read_config(config.path)
    edited = _with_block(config, current)
    if edited == current:
        return Change(f"{config.path}: already has git-intent; unchanged.", "")
    InstallRecord(_record_path()).write(editor, config.path, current, edited, new_mode=0o644)
    return Change(
        f"{config.path}: {'created' if current is None else 'added git-intent'}.",
        config_diff(config.path, current, edited),
    )


def uninstall_editor(editor: str) -> Change | None:
    """Take git-intent out of `editor`'s config: the recorded bytes come back when the file is as install
    left it (a file install created is removed); otherwise only the block goes. None when it was not there."""
    config = _writable(editor_config(editor))
    record = InstallRecord(_record_path())
    path = record.file_of(editor) or config.path
    assert path is not None
    current = read_config(path)
    change: Change | None = None
    restored, original = record.restore(editor, path, current)
    if restored:
        what = "restored as it was before install" if original is not None else "removed (install created it)"
        change = Change(f"{path}: {what}.", config_diff(path, current, original))
    elif current is not None:
        edited = _without_block(config, current)
        if edited != current:
            write_config(path, edited)
            change = Change(
                f"{path}: removed the git-intent block (the file changed since install, so the rest of it "
                f"is kept).",
                config_diff(path, current, edited),
            )
    record.save()
    return change


def _writable(config: EditorConfig) -> EditorConfig:
    if config.path is None:
        raise IntentError(
            f"{config.editor} has no configuration file git-intent can write a language server into.",
            hint=f"Run `git intent install --editor {config.editor}` without --write to see the "
            f"command to configure.",
        )
    return config


def _markers(config: EditorConfig) -> tuple[str, str]:
    return f"{config.comment} {BEGIN.format(editor=config.editor)}", f"{config.comment} {END}"


def _with_block(config: EditorConfig, current: bytes | None) -> bytes:
    if not config.comment:  # a file of our own
        return config.text.encode("utf-8")
    text = _decode(config, current)
    begin, end = _markers(config)
    start, stop = text.find(begin), text.find(end)
    if (
        start >= 0 and stop > start
    ):  # installed before: the block is written again (the command may have moved)
        return f"{text[:start]}{begin}\n{config.text}{text[stop:]}".encode()
    separator = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
    return f"{text}{separator}{begin}\n{config.text}{end}\n".encode()


def _without_block(config: EditorConfig, current: bytes) -> bytes | None:
    if not config.comment:
        return None if current == config.text.encode("utf-8") else current  # edited since: the user's now
    text = _decode(config, current)
    begin, end = _markers(config)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        return current
    stop += len(end) + (1 if text[stop + len(end) : stop + len(end) + 1] == "\n" else 0)
    head, rest = text[:start], text[stop:]
    if head.endswith("\n\n") and (not rest or rest.startswith("\n")):  # the blank line install put before it
        head = head[:-1]
    return (head + rest).encode()


def _decode(config: EditorConfig, current: bytes | None) -> str:
    try:
        return current.decode("utf-8") if current is not None else ""
    except UnicodeDecodeError:
        raise IntentError(f"{config.path} is not UTF-8 text; it was left untouched.") from None


def _lua_list(parts: list[str]) -> str:
    return "{" + ", ".join(json.dumps(part) for part in parts) + "}"


def _record_path() -> Path:
    return user_state_file("editors", "installed.json")


_NEOVIM = """\
-- git-intent: why is this line here? Hover (K) on a line; code lenses above each agent's lines.
-- Written by `git intent install --editor neovim`; `git intent uninstall --editor neovim` removes it.
local cmd = COMMAND
local client_id
vim.api.nvim_create_autocmd({"BufReadPost", "BufNewFile"}, {
  group = vim.api.nvim_create_augroup("git-intent", {clear = true}),
  callback = function(args)
    if vim.bo[args.buf].buftype ~= "" or vim.api.nvim_buf_get_name(args.buf) == "" then return end
    if not (client_id and vim.lsp.get_client_by_id(client_id)) then
      client_id = vim.lsp.start_client({name = "git-intent", cmd = cmd, root_dir = vim.loop.cwd()})
    end
    if client_id then vim.lsp.buf_attach_client(args.buf, client_id) end
  end,
})
"""

_EMACS = """\
(with-eval-after-load 'lsp-mode
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection '(COMMAND))
                    :activation-fn (lambda (&rest _) (buffer-file-name))
                    :add-on? t
                    :server-id 'git-intent)))
(defun git-intent-eglot ()
  "Start git-intent's language server (why is this line here?) with eglot in this buffer."
  (interactive)
  (require 'eglot)
  (let ((eglot-server-programs (cons (cons major-mode '(COMMAND)) eglot-server-programs)))
    (call-interactively #'eglot)))
"""
