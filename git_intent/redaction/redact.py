"""The one choke point through which transcript text may enter a git object: redact every string, then seal.

`seal()` is the only producer of `Sealed` bytes, and `evidence_ref` writes nothing else into the
object store, so no transcript text reaches git without passing the detectors. It fails
closed: any error while redacting raises RedactionError and nothing is written. A secret is replaced
whole by `[REDACTED:<rule>]` (no fragment of it is left), home folders in paths become `~`, images and
binary outputs are dropped. Lines identical to lines of the commit's own diff are left as they are:
they are already in the repository.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import RedactionError

# Fields that hold ids, times and enumerations git-intent itself wrote into a payload: never prose.
ID_KEYS = frozenset(
    {
        "schema",
        "level",
        "agent",
        "session_id",
        "message_id",
        "call_id",
        "parent_session_id",
        "timestamp",
        "commits",
        "role",
        "kind",
        "topic_id",
        "agent_version",
        "first_message_id",
        "last_message_id",
        "turn_id",
        "digest",
        "source",
    }
)
_SEAL = object()


@dataclass(frozen=True)
class Redacted:
    """A redacted text and the findings applied to it (positions in the original text)."""

    text: str
    findings: tuple[Any, ...] = ()

    @property
    def touched(self) -> bool:
        """Whether redaction changed anything."""
        return bool(self.findings)


@dataclass(frozen=True)
class Sealed:
    """Redacted JSON bytes, ready for the object store; only `seal()` makes them."""

    data: bytes
    rules: dict[str, int] = field(default_factory=dict)
    token: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.token is not _SEAL:
            raise RedactionError("Sealed bytes can only come from redact.seal(); nothing was written.")


_CONTROL = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\ufffd]")


def _is_binary(text: str) -> bool:
    """NUL anywhere, or more than 10% control characters (or decoding replacements) in the first 4 KiB."""
    if "\0" in text:
        return True
    sample = text[:4096]
    return len(sample) >= 64 and len(_CONTROL.findall(sample)) / len(sample) > 0.1


def _merge(findings: list[Any]) -> list[Any]:
    """Overlapping findings become one span; a secret's replacement wins over a home path's `~`."""
    from .detectors import Finding

    merged: list[Finding] = []
    for found in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and found.start < merged[-1].end:
            last = merged[-1]
            keep = last if last.replacement != "~" or found.replacement == "~" else found
            merged[-1] = Finding(keep.rule, last.start, max(last.end, found.end), keep.replacement)
        else:
            merged.append(found)
    return merged


def _apply(text: str, findings: list[Any]) -> str:
    out: list[str] = []
    at = 0
    for found in findings:
        out += [text[at : found.start], found.replacement]
        at = found.end
    out.append(text[at:])
    return "".join(out)


def _chunk(text: str, offset: int) -> Redacted:
    from .detectors import Finding, all_findings

    found = _merge(all_findings(text))
    shifted = tuple(Finding(f.rule, f.start + offset, f.end + offset, f.replacement) for f in found)
    return Redacted(_apply(text, found), shifted)


def _kept(line: str, keep: frozenset[str]) -> bool:
    stripped = line.strip()
    return bool(stripped) and (stripped in keep or stripped[1:].strip() in keep)


def redact_text(text: str, keep: frozenset[str] = frozenset()) -> Redacted:
    """`text` with every secret replaced by `[REDACTED:<rule>]` and home folders by `~`.

    Lines whose stripped text (or that text after a diff marker) is in `keep` are left as they are.
    A binary text becomes `[binary output omitted]`. Raises RedactionError when a detector fails.
    """
    from .detectors import Finding

    try:
        if _is_binary(text):
            return Redacted(
                "[binary output omitted]", (Finding("binary", 0, len(text), "[binary output omitted]"),)
            )
        if not keep:
            return _chunk(text, 0)
        out: list[str] = []
        findings: list[Any] = []
        lines = text.splitlines(keepends=True)
        at = index = 0
        while index < len(lines):
            if _kept(lines[index], keep):
                out.append(lines[index])
                at += len(lines[index])
                index += 1
                continue
            end = index
            while end < len(lines) and not _kept(lines[end], keep):
                end += 1
            part = "".join(lines[index:end])
            done = _chunk(part, at)
            out.append(done.text)
            findings += done.findings
            at += len(part)
            index = end
        return Redacted("".join(out), tuple(findings))
    except RedactionError:
        raise
    except Exception as exc:  # fail closed: an unexpected detector error must not let text through
        raise RedactionError(
            f"Redaction failed ({type(exc).__name__}: {exc}); nothing was shared.",
            hint="Report this with `git intent redact --check FILE` on the text, if you can.",
        ) from exc


def _walk(value: Any, keep: frozenset[str], counts: Counter[str]) -> tuple[Any, bool]:
    if isinstance(value, str):
        done = redact_text(value, keep)
        counts.update(f.rule for f in done.findings)
        return done.text, done.touched
    if isinstance(value, list):
        if _is_parts(value):
            return _walk_parts(value, keep, counts)
        pairs = [_walk(v, keep, counts) for v in value]
        return [v for v, _ in pairs], any(t for _, t in pairs)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        touched = False
        for key, item in value.items():
            if key in ID_KEYS or key == "redacted":
                out[key] = item
                continue
            out[key], changed = _walk(item, keep, counts)
            touched = touched or changed
        if "redacted" in value:
            out["redacted"] = touched
        return out, touched
    if value is None or isinstance(value, (bool, int, float)):
        return value, False
    raise RedactionError(f"A {type(value).__name__} cannot be sealed; only JSON values can.")


_JOINED = frozenset({"text", "reasoning"})  # the prose parts a message's writer may split anywhere


def _is_parts(value: list[Any]) -> bool:
    """A message's parts: two or more objects, each with a `kind` and a `text` string (an edit's `added`
    lines have no kind: each is a line of the diff, kept or redacted alone)."""
    return len(value) > 1 and all(
        isinstance(v, dict) and isinstance(v.get("text"), str) and "kind" in v for v in value
    )


def _walk_parts(parts: list[dict[str, Any]], keep: frozenset[str], counts: Counter[str]) -> tuple[Any, bool]:
    """A message's parts redacted as one text (a token split across two text parts kept its first
    half): each run of text and reasoning parts is joined, redacted, and split again where they met; a secret
    across a boundary is replaced in the part where it starts and its rest removed from the next."""
    texts = [p["text"] for p in parts]
    alone = [p.get("kind") not in _JOINED or _is_binary(t) for p, t in zip(parts, texts, strict=True)]
    out_texts: list[str] = []
    touched_parts: list[bool] = []
    at = 0
    while at < len(
        texts
    ):  # runs of text and reasoning parts are joined; a tool call, a result, binary: alone
        end = at + 1
        while not alone[at] and end < len(texts) and not alone[end]:
            end += 1
        pieces, findings = _split_redacted(texts[at:end], keep)
        counts.update(f.rule for f in findings)
        out_texts += pieces
        bounds = [0, *_cumulative(texts[at:end])]
        touched_parts += [
            any(f.start < bounds[i + 1] and f.end > bounds[i] for f in findings) for i in range(end - at)
        ]
        at = end
    out: list[Any] = []
    touched = False
    for part, text, changed in zip(parts, out_texts, touched_parts, strict=True):
        rest, more = _walk({k: v for k, v in part.items() if k != "text"}, keep, counts)
        rest["text"] = text
        out.append({k: rest[k] for k in part})
        touched = touched or changed or more
    return out, touched


def _cumulative(texts: list[str]) -> list[int]:
    total, ends = 0, []
    for text in texts:
        total += len(text)
        ends.append(total)
    return ends


def _split_redacted(texts: list[str], keep: frozenset[str]) -> tuple[list[str], tuple[Any, ...]]:
    """`texts` redacted as one joined text, split back at the boundaries (each mapped through the
    replacements)."""
    done = redact_text("".join(texts), keep)
    if len(texts) == 1:
        return [done.text], done.findings
    mapped, delta, index = [], 0, 0
    findings = sorted(done.findings, key=lambda f: f.start)
    for boundary in _cumulative(texts)[:-1]:
        while index < len(findings) and findings[index].end <= boundary:
            found = findings[index]
            delta += len(found.replacement) - (found.end - found.start)
            index += 1
        inside = index < len(findings) and findings[index].start < boundary
        mapped.append(
            findings[index].start + delta + len(findings[index].replacement) if inside else boundary + delta
        )
    cuts = [0, *mapped, len(done.text)]
    return [done.text[cuts[i] : cuts[i + 1]] for i in range(len(texts))], done.findings


def seal(payload: dict[str, Any], keep: frozenset[str] = frozenset()) -> Sealed:
    """Redact every string of `payload` (except the id fields in ID_KEYS) and encode it as compact,
    key-sorted UTF-8 JSON, so equal content gives an equal blob. Every object with a `redacted` key gets
    it set to whether redaction changed any string inside it.

    Raises RedactionError when anything fails: nothing may be written then.
    """
    counts: Counter[str] = Counter()
    try:
        cleaned, _ = _walk(payload, keep, counts)
        data = json.dumps(cleaned, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except RedactionError:
        raise
    except Exception as exc:
        raise RedactionError(
            f"Sealing shared evidence failed ({type(exc).__name__}: {exc}); nothing was shared."
        ) from exc
    return Sealed(data=data, rules=dict(counts), token=_SEAL)


@dataclass(frozen=True)
class CheckFinding:
    """One finding of `redact --check`: where (1-based line and column), which rule, how long."""

    line: int
    column: int
    rule: str
    length: int
    replacement: str


def check_text(text: str) -> list[CheckFinding]:
    """What `redact_text` would replace in `text`, in order. Raises RedactionError like it."""
    done = redact_text(text)
    out = []
    for found in done.findings:
        line = text.count("\n", 0, found.start) + 1
        column = found.start - (text.rfind("\n", 0, found.start) + 1) + 1
        out.append(CheckFinding(line, column, found.rule, found.end - found.start, found.replacement))
    return out
