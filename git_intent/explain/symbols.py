"""The function, method or class that encloses a line, named from a tree-sitter parse of its file.

tree-sitter and tree-sitter-language-pack (0.x: grammars inside the wheel, nothing fetched at run time) are
imported only when a symbol is asked for; a file whose language has no grammar, or that does not parse, has no
symbol. A file's symbols are kept in the user's cache by its content (`cached_file_symbols`): loading the pack
and parsing cost a blame ~10 ms, the second blame of an unchanged file none.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ..core.version import __version__

# File name endings → tree-sitter-language-pack names.
LANGUAGES = {
    ".go": "go",
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".java": "java",
    ".rb": "ruby",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".swift": "swift",
    ".php": "php",
    ".scala": "scala",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".ex": "elixir",
    ".exs": "elixir",
}
# Definition node types → the word shown before the name ("func ChunkJSONL", "def Explainer.note").
_KINDS = {
    "function_declaration": "function",
    "function_definition": "function",
    "function_item": "fn",
    "method_declaration": "method",
    "method_definition": "method",
    "method": "def",
    "singleton_method": "def",
    "constructor_declaration": "constructor",
    "class_declaration": "class",
    "class_definition": "class",
    "class_specifier": "class",
    "class": "class",
    "module": "module",
    "interface_declaration": "interface",
    "struct_item": "struct",
    "struct_specifier": "struct",
    "enum_item": "enum",
    "enum_declaration": "enum",
    "trait_item": "trait",
    "impl_item": "impl",
    "type_spec": "type",
    "object_declaration": "object",
}
_WORD = {
    ("go", "function"): "func",
    ("go", "method"): "func",
    ("python", "function"): "def",
    ("python", "class"): "class",
}
_CONTAINERS = frozenset({"class", "impl", "struct", "trait", "interface", "module", "object", "enum", "type"})
MAX_BYTES = 2_000_000  # a larger file is not parsed: a symbol is not worth a long parse on a blame


@dataclass(frozen=True)
class Symbol:
    """A definition: `kind` ("func", "def", "class", "method", …), its bare `name`, its `qualified` name (the
    enclosing classes joined by "."; a Go method with its receiver), and its 1-based inclusive line span."""

    kind: str
    name: str
    qualified: str
    start: int
    end: int

    @property
    def label(self) -> str:
        """How answers show it: `func ChunkJSONL`, `def Explainer.note`, `func (s *Syncer) Run`."""
        return f"{self.kind} {self.qualified}"


def language_of(path: str) -> str | None:
    """The grammar name for `path` by its ending, or None."""
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot >= 0 else None


def file_symbols(path: str, source: bytes) -> list[Symbol]:
    """Every definition of `source` (the file at `path`), outer ones before those they hold; empty when its
    language has no grammar, the grammar pack is not installed, or the file is over MAX_BYTES."""
    language = language_of(path)
    if language is None or len(source) > MAX_BYTES:
        return []
    try:
        from tree_sitter_language_pack import get_parser
    except ImportError:
        return []
    try:
        tree = get_parser(language).parse(source)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a grammar the pack lacks raises its own errors: no symbol, never a failure
        return []
    found: list[Symbol] = []
    _walk(tree.root_node, language, [], found)
    return found


def cached_file_symbols(path: str, source: bytes) -> list[Symbol]:
    """`file_symbols`, kept in `${XDG_CACHE_HOME:-~/.cache}/git-intent/symbols/` under a digest of the source,
    its language and the code that finds symbols (this module, the grammar pack): an edited file, another
    grammar or another git-intent never meets an old answer."""
    from ..sessions.parse_cache import cache_root, keep, load_kept

    language = language_of(path)
    if language is None or len(source) > MAX_BYTES:
        return []
    key = hashlib.sha256(b"\0".join([_fingerprint().encode(), language.encode(), source])).hexdigest()[:32]
    found = load_kept(cache_root() / "symbols", key)
    if isinstance(found, list) and all(type(s) is Symbol for s in found):
        return found
    symbols = file_symbols(path, source)
    keep(cache_root(), "symbols", key, symbols)
    return symbols


@lru_cache(maxsize=1)
def _fingerprint() -> str:
    """This git-intent, this module and the installed grammar pack, as text (no import of the pack)."""
    stamps = [__version__]
    spec = find_spec("tree_sitter_language_pack")
    for where in (__file__, spec.origin if spec is not None else None):
        try:
            info = os.stat(where) if where else None
        except OSError:
            info = None
        stamps.append(f"{Path(where).name}:{info.st_size}:{info.st_mtime_ns}" if where and info else "-")
    return "\0".join(stamps)


def enclosing(symbols: list[Symbol], line: int) -> Symbol | None:
    """The innermost definition of `symbols` whose span holds `line`."""
    inside = [s for s in symbols if s.start <= line <= s.end]
    return min(inside, key=lambda s: s.end - s.start) if inside else None


def _walk(node: Any, language: str, outer: list[str], found: list[Symbol]) -> None:
    for child in node.children:
        kind = _KINDS.get(child.type)
        name = _name(child, language) if kind else None
        if kind is None or name is None:
            _walk(child, language, outer, found)
            continue
        word = _WORD.get((language, kind), kind)
        qualified = ".".join([*outer, name])
        if language == "go" and child.type == "method_declaration":
            receiver = child.child_by_field_name("receiver")
            qualified = f"{_text(receiver)} {name}" if receiver is not None else name
        found.append(Symbol(word, name, qualified, child.start_point[0] + 1, child.end_point[0] + 1))
        _walk(child, language, [*outer, name] if kind in _CONTAINERS else outer, found)


def _name(node: Any, language: str) -> str | None:
    named = node.child_by_field_name("name") or (
        node.child_by_field_name("type") if node.type == "impl_item" else None
    )
    declarator = node.child_by_field_name("declarator")
    while named is None and declarator is not None:  # C/C++: int *f(void) → the declarator's identifier
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            named = declarator
        declarator = inner
    text = _text(named) if named is not None else ""
    return text if text and len(text) <= 120 and "\n" not in text else None


def _text(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")
