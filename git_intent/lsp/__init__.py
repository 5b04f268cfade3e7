"""git-intent in the editor: `git intent lsp`, a Language Server over stdio (`server`, needs the `lsp` extra),
the resident answers it caches per HEAD (`answers`), and each editor's client configuration (`editors`).

Nothing here imports pygls at package import: only `git intent lsp` loads `server`.
"""

# The editors `git intent install --editor` knows. Here, not in `editors`, so the CLI can offer the names
# without importing that module on every command.
EDITORS = ("neovim", "helix", "zed", "vscode", "emacs")
