"""Text from transcripts and notes made safe to print: nothing in it can drive a terminal.

Transcripts are untrusted input. Printed raw, an ANSI or OSC sequence in a session id or a message can move
the cursor, rewrite the screen or set the clipboard (OSC 52); C1 controls (U+0080–U+009F) act as escape
sequences on some terminals; bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069, "Trojan Source") make
text read differently from what it is; zero-width, bidi marks, the BOM and tag characters hide text. Every
text output passes through `terminal_safe` (the CLI's `echo`, `hook.log`, review's markdown, the web view's
templates); JSON output through `json_safe`. Standard library only: the hook imports it.
"""

from __future__ import annotations

# C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates, line and paragraph
# separators (U+2028/U+2029 break lines where a reader does not expect it).
_UNSAFE = [
    *(c for c in range(32) if c not in (9, 10)),
    *range(127, 160),
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    0x2028,
    0x2029,
]
# Invisible characters, the format characters (Unicode category Cf) a reader does not see: soft
# hyphen, Arabic and Syriac marks, zero-width space/joiners, bidi marks (U+200E/F, U+061C), word joiner and
# invisible operators, deprecated format characters, the BOM, interlinear annotation, and the tag characters
# U+E0000-U+E007F, which can spell instructions a model reads and a person does not see. Shown in text,
# markdown and HTML; JSON keeps them as data. The redactor deletes the same ones before matching.
INVISIBLE = [
    0x00AD,
    *range(0x0600, 0x0606),
    0x061C,
    0x06DD,
    0x070F,
    0x08E2,
    0x180E,
    *range(0x200B, 0x2010),
    *range(0x2060, 0x2065),
    *range(0x206A, 0x2070),
    0xFEFF,
    *range(0xFFF9, 0xFFFC),
    0x110BD,
    0x110CD,
    *range(0x1BCA0, 0x1BCA4),
    *range(0x1D173, 0x1D17B),
    *range(0xE0000, 0xE0080),
]


def _escape(c: int) -> str:
    return f"\\x{c:02x}" if c < 256 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"


_TEXT = str.maketrans({c: _escape(c) for c in [*_UNSAFE, *INVISIBLE]})
# In JSON the same characters become \\u escapes: the parsed string is unchanged, the printed one inert.
# (json.dumps already escapes C0; the others it passes through with ensure_ascii=False.)
_JSON = str.maketrans({c: f"\\u{c:04x}" for c in _UNSAFE if c >= 127})


def terminal_safe(text: str) -> str:
    """`text` with every character that could drive a terminal, or that a reader cannot see (`INVISIBLE`),
    shown as `\\xNN`, `\\uNNNN` or `\\UNNNNNNNN`.

    Tab and newline stay. The result is plain text of about the same length (4–6 characters per escape).
    """
    return text.translate(_TEXT)


def json_safe(document: str) -> str:
    """A JSON document (from `json.dumps(..., ensure_ascii=False)`) with DEL, C1, bidi and line-separator
    characters written as `\\uNNNN` escapes: the same JSON value, safe to print."""
    return document.translate(_JSON)
