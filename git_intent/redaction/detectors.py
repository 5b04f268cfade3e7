"""Secret detectors: the vendored gitleaks rules, git-intent's own rules, an entropy backstop, home paths.

Each detector returns `Finding`s (spans of the text and what replaces them); `redact.py` is the one
place that applies them. The gitleaks rule set is data (`git_intent/data/gitleaks/`, MIT, see its
README) run with `google-re2`, as gitleaks runs it: lowercase keyword prefilter, the rule's secret
group (else the first non-empty group), its minimum Shannon entropy, a digit for `generic-*` rules, and
its allowlists (docs/design.md: this combination caught 360/360 planted fakes at ~4.5 MB/s; detect-secrets
returned no spans and flagged every SHA).
"""

from __future__ import annotations

import math
import re
import tomllib
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import re2  # google-re2: linear time, Go RE2 syntax (the rules are written for it)

from ..core.errors import RedactionError
from . import normalise

# A value after a secret's name: quoted (any characters but the quote, spaces included: `"password": "correct
# horse battery staple"`), quoted inside a JSON string (a tool call's arguments: `\"amber falcon river.\"`,
# escapes but `\"` and `\n` allowed), else a bare run. Groups: double-quoted, single-quoted, escaped, bare.
_VALUE = (
    r"""(?:"([^"\n]{4,200})"|'([^'\n]{4,200})'|\\"((?:[^"\\\n]|\\[^"n\n]){4,200})\\"|([^\s'"`,;)\]}>]{6,}))"""
)
# A variable or key naming a secret, whatever its prefix (PGPASSWORD, MYSQL_PWD, WEBHOOK_SECRET, x-api-key).
_NAME = (
    r"(?i:[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api_?key|apikey|access_?key|private_?key|"
    r"_pass|_pwd|credentials?))"
)
# Own rules: what must never pass even when a gitleaks rule's entropy or allowlist would let it.
# (rule id, pattern, secret group: 0 = the first non-empty group, else the whole match)
OWN_RULES: tuple[tuple[str, str, int], ...] = (
    # Any credential in a URL's authority: `user:pw@`, `:pw@` (redis), or a long token as the user name.
    ("credentialed-url", r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([^\s:/@'\"`<>]*:[^\s/@'\"`<>]+)@", 1),
    ("credentialed-url", r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([A-Za-z0-9_~.-]*[0-9][A-Za-z0-9_~.-]*)@", 1),
    ("secret-assignment", _NAME + r"\b(?:\\?['\"])?[ \t]*(?:=|:=|=>|:)[ \t]*" + _VALUE, 0),
    # Command-line options: `--password <pw>`, `--password=<pw>`, `--token "<pw>"`; `mysql -p<pw>`.
    (
        "password-option",
        r"(?:^|[\s'\"])--?(?i:password|passwd|pass|pwd|token|secret|api-key|apikey)(?:=|[ \t]+)" + _VALUE,
        0,
    ),
    (
        "password-option",
        r"\bmysql(?:dump|admin|import|show|check|sh)?\b[^\n|;&]*?[ \t]-p([^\s'\"`;|&]{3,})",
        1,
    ),
    # Prose: `my ssh passphrase is 'correct horse'`, `the password was hunter22`.
    (
        "secret-in-prose",
        r"(?i:\b(?:password|passphrase|passwd|pass phrase|secret|token|api key)\b)[ \t]+"
        r"(?i:is|was|is set to|was set to|reads)[ \t]+(?:“([^”\n]{4,200})”|‘([^’\n]{4,200})’|" + _VALUE[3:],
        0,
    ),
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:(?s:.)*?-----END[ "
        r"A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]*)",
        0,
    ),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    (
        "provider-key",
        r"\b(?:sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|"
        r"sk-[A-Za-z0-9]{32,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}|"
        r"gl(?:dt|ft|rt|soat|ptt|cbt)-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|"
        r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|"
        r"AIza[A-Za-z0-9_-]{35}|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{40,}|hf_[A-Za-z0-9]{30,}|"
        r"SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}|dop_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})",
        0,
    ),
)
# Substrings one of which must occur before an own rule's regex is worth running (like gitleaks' keywords;
# matched case-sensitively, except the assignment names, matched in the lower-cased text).
OWN_PREFILTER: dict[str, tuple[str, ...]] = {
    "credentialed-url": ("://",),
    "secret-assignment": (
        "pass",
        "secret",
        "token",
        "api_key",
        "apikey",
        "access",
        "private",
        "_pwd",
        "credential",
    ),
    "password-option": ("--pass", "-pass", "--pwd", "-pwd", "token", "secret", "api-key", "apikey", "mysql"),
    "secret-in-prose": ("pass", "secret", "token", "api key"),
    "private-key": ("PRIVATE KEY",),
    "jwt": ("eyJ",),
    "provider-key": (
        "sk-",
        "gh",
        "github_pat_",
        "gl",
        "xox",
        "_live_",
        "_test_",
        "whsec_",
        "AKIA",
        "ASIA",
        "ABIA",
        "ACCA",
        "AIza",
        "npm_",
        "pypi-",
        "hf_",
        "SG.",
        "dop_v1_",
        "shp",
    ),
}
# A data: URI or a long base64 run of an image: never shared, whatever its content.
IMAGE = r"data:image/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=\\]{16,}"
# Home folders in paths: the user name is not shared; `/Users/ann/x` becomes `~/x`.
HOME = r"(?:/Users|/home)/[^/\s'\"`\\:]+|/root\b|[A-Za-z]:(?:\\\\|\\|/)Users(?:\\\\|\\|/)[^\\/\s'\"`:]+"
# Entropy backstop: runs of token characters, judged per segment (SHAs, UUIDs and hashes are hex: spared).
TOKEN = r"[A-Za-z0-9+/_-]{20,}={0,2}"
MIN_SEGMENT = 20
MIN_ENTROPY = 3.7
MIN_CLASS_SWITCHES = 0.3  # random text changes between upper/lower/digit often; identifiers rarely do
# Share of characters in lower-case runs of 4+: the words of identifiers (newSmartHTTPRepoServerV2: 0.38),
# rare in random text (40 random base62 characters: 0.10 median, 0.28 at the 95th percentile).
MAX_WORDINESS = 0.35
_WORDS = re.compile(r"[a-z]{4,}")
_DIGIT = re.compile(r"[0-9]")


@dataclass(frozen=True)
class Finding:
    """A span `[start, end)` of a text, the rule that found it, and the text that replaces it."""

    rule: str
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class _Rule:
    rule_id: str
    regex: Any
    group: int  # 0: the first non-empty group, else the whole match; > 0: that group
    keywords: tuple[str, ...]
    entropy: float
    allow: tuple[tuple[str, Any], ...]  # (target: secret | match | line, regex)
    stopwords: Any  # one RE2 alternation of the lower-cased words, or None


def shannon(text: str) -> float:
    """Shannon entropy of `text` in bits per character (0.0 for an empty text)."""
    if not text:
        return 0.0
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in Counter(text).values())


def _compile(pattern: str) -> Any:
    try:
        return re2.compile(pattern)
    except Exception as exc:  # a rule that does not compile would silently share what it should catch
        raise RedactionError(
            f"The redaction rule {pattern[:60]!r} does not compile under RE2: {exc}."
        ) from exc


def _allowlists(spec: list[dict[str, Any]]) -> tuple[tuple[tuple[str, Any], ...], Any]:
    allow: list[tuple[str, Any]] = []
    stopwords: list[str] = []
    for entry in spec:
        if entry.get("paths") and entry.get("condition") == "AND":
            continue  # needs a file path to hold; evidence text has none, so it never holds
        target = entry.get("regexTarget", "secret")
        allow += [(target, _compile(pattern)) for pattern in entry.get("regexes", [])]
        stopwords += [word.lower() for word in entry.get("stopwords", [])]
    # One search for any of them: testing each word in turn (generic-api-key has 1,500) was most of the
    # redaction time on text full of assignments.
    return tuple(allow), _compile("|".join(re2.escape(word) for word in stopwords)) if stopwords else None


@cache
def _keyword_index() -> tuple[Any, tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """One RE2 set over every rule keyword (one linear pass tells which keywords occur), the rules each
    keyword enables, and the rules without keywords (always run)."""
    rules = gitleaks_rules()[0]
    keywords = sorted({k for rule in rules for k in rule.keywords})
    index = re2.Set.SearchSet(re2.Options())
    for keyword in keywords:
        index.Add(re2.escape(keyword))
    index.Compile()
    enables = tuple(
        tuple(i for i, rule in enumerate(rules) if keyword in rule.keywords) for keyword in keywords
    )
    return index, enables, tuple(i for i, rule in enumerate(rules) if not rule.keywords)


@cache
def gitleaks_rules() -> tuple[tuple[_Rule, ...], tuple[tuple[str, Any], ...], Any]:
    """The vendored gitleaks rules compiled, and the global allowlist (regexes, stopwords).

    Raises RedactionError when the data is missing or a rule does not compile (fail closed).
    """
    try:
        data = tomllib.loads(
            resources.files("git_intent")
            .joinpath("data", "gitleaks", "gitleaks.toml")
            .read_text(encoding="utf-8")
        )
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RedactionError(f"The gitleaks rule set shipped with git-intent cannot be read: {exc}.") from exc
    rules = []
    for spec in data.get("rules", []):
        if "regex" not in spec:
            continue  # path-only rules (file names such as *.p12) say nothing about text
        allow, stopwords = _allowlists(spec.get("allowlists", []))
        rules.append(
            _Rule(
                rule_id=spec["id"],
                regex=_compile(spec["regex"]),
                group=int(spec.get("secretGroup", 0)),
                keywords=tuple(k.lower() for k in spec.get("keywords", [])),
                entropy=float(spec.get("entropy", 0.0)),
                allow=allow,
                stopwords=stopwords,
            )
        )
    allow, stopwords = _allowlists([data.get("allowlist", {})])
    return tuple(rules), allow, stopwords


@cache
def _own() -> tuple[tuple[str, Any, int], ...]:
    return tuple((rule_id, _compile(pattern), group) for rule_id, pattern, group in OWN_RULES)


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    # Plain character-class runs, linear in Python's `re` too, and faster there than through the re2
    # binding's offset conversions (measured: the token scan was most of the redaction time).
    return re.compile(IMAGE), re.compile(HOME), re.compile(TOKEN), re.compile(r"[/_-]")


def _span(match: Any, group: int) -> tuple[int, int]:
    if group > 0:
        return tuple(match.span(group)) if group <= len(match.groups()) else (-1, -1)
    for index, value in enumerate(match.groups(), start=1):
        if value:
            return tuple(match.span(index))
    return tuple(match.span(0))


class _Lines:
    """The line around each match of a text, and whether an allowlist regex holds on it, each line searched
    once per regex: slicing and searching a line for every match on it was quadratic (one 2 MB line of
    secret assignments took 37 s)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None
        self._verdicts: dict[tuple[int, int, int], bool] = {}

    def around(self, start: int, end: int) -> tuple[int, int]:
        """`(line start, line end)` of the lines holding `text[start:end]`, without their newline."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        newlines = self._newlines
        before, after = bisect_left(newlines, start), bisect_left(newlines, end)
        return newlines[before - 1] + 1 if before else 0, newlines[after] if after < len(newlines) else len(
            self.text
        )

    def holds(self, span: tuple[int, int], regex: Any) -> bool:
        key = (*span, id(regex))
        if key not in self._verdicts:
            self._verdicts[key] = regex.search(self.text[span[0] : span[1]]) is not None
        return self._verdicts[key]


def _allowed(
    secret: str,
    match: str,
    line: tuple[int, int],
    lines: _Lines,
    allow: tuple[tuple[str, Any], ...],
    stopwords: Any,
) -> bool:
    if stopwords is not None and stopwords.search(secret.lower()):
        return True
    for target, regex in allow:
        if (
            lines.holds(line, regex)
            if target == "line"
            else regex.search(match if target == "match" else secret)
        ):
            return True
    return False


def gitleaks_findings(text: str) -> list[Finding]:
    """Spans the gitleaks rules report in `text` (each replaced by `[REDACTED:<rule id>]`)."""
    rules, global_allow, global_stop = gitleaks_rules()
    index, enables, always = _keyword_index()
    hits = index.Match(text.lower()) or []
    found: list[Finding] = []
    lines = _Lines(text)
    for number in sorted({*always, *(i for hit in hits for i in enables[hit])}):
        rule = rules[number]
        for match in rule.regex.finditer(text):
            start, end = _span(match, rule.group)
            if start < 0 or end <= start:
                continue
            secret = text[start:end]
            if rule.entropy and shannon(secret) <= rule.entropy:
                continue
            if rule.rule_id.startswith("generic") and not any(c.isdigit() for c in secret):
                continue
            whole = match.group(0)
            line = lines.around(*match.span(0))
            if _allowed(secret, whole, line, lines, rule.allow, rule.stopwords) or _allowed(
                secret, whole, line, lines, global_allow, global_stop
            ):
                continue
            found.append(Finding(rule.rule_id, start, end, f"[REDACTED:{rule.rule_id}]"))
    return found


_VALUED = frozenset({"secret-assignment", "password-option", "secret-in-prose"})
# A quoted value holding one of these marks is a template, whatever else it says ("<your key>", "${TOKEN}").
_PLACEHOLDER_MARKS = ("xxx", "***", "...", "…", "<", "{{", "${", "%(")
_FINAL_PUNCTUATION = ".!?…;:,"
# A one-word value that is one of these words, or made of them ("test-token", "your_key"), is a placeholder.
# Whole words only: as substrings they spared "Yourkiddo9" and "my latest horse" ; a
# phrase with spaces is a passphrase, so the words do not spare it ("none of yours").
_PLACEHOLDER_WORDS = re.compile(
    r"(?<![a-z])(?:example|test|dummy|fake|placeholder|changeme|change_me|your|redacted|"
    r"mock|sample|none|null|undefined)(?![a-z])"
)


def own_findings(text: str) -> list[Finding]:
    """Spans git-intent's own rules report: credentialed URLs, secret-named assignments (`*PASSWORD=`,
    `"token": "…"`), password options, secrets named in prose, private key blocks, JWTs, provider key
    prefixes, and images (`data:image/…;base64`)."""
    found = []
    lowered = text.lower()
    for rule_id, regex, group in _own():
        haystack = lowered if rule_id in _VALUED else text
        if not any(word in haystack for word in OWN_PREFILTER[rule_id]):
            continue
        for match in regex.finditer(text):
            start, end = _span(match, group)
            if rule_id in _VALUED and not _literal(match, text[start:end]):
                continue
            if end > start:
                found.append(Finding(rule_id, start, end, f"[REDACTED:{rule_id}]"))
    if "data:image/" in text:
        found += [
            Finding("image", m.start(), m.end(), "[image omitted]") for m in _patterns()[0].finditer(text)
        ]
    return found


def _literal(match: Any, value: str) -> bool:
    """Whether a secret-named value is a literal secret: a quoted one unless it is a placeholder
    (`"test-token"`, `"<your key>"`); a bare one unless it reads as code (`_looks_like_code`)."""
    groups = match.groups()
    quoted = len(groups) > 1 and not groups[-1]  # the last group is the bare value
    if quoted:
        # Final punctuation belongs to the value ("amber falcon river." or "…"), not to a template's marks.
        lowered = value.lower().rstrip(_FINAL_PUNCTUATION)
        if value.startswith(("$", "%", "[REDACTED")) or any(mark in lowered for mark in _PLACEHOLDER_MARKS):
            return False
        if " " not in value.strip() and _PLACEHOLDER_WORDS.search(lowered):
            return False
        # One word or identifier without a digit ("pass", "my-token", "phc_development_key" in test code) is
        # read as a bare value is; a phrase with spaces is a passphrase.
        return " " in value or not _looks_like_code(value)
    return not _looks_like_code(value.rstrip(".:!?"))  # "the password is wrong:" is prose, not a secret


def _looks_like_code(value: str) -> bool:
    """An assigned value that is a name, a call, an index or a variable (`os.environ[...]`, `$TOKEN`,
    `input()`, `encoded[:idx]`), not a literal secret: brackets, or letters and dots only, or a placeholder.
    Letters only but long and random (40 letters after "session token:") is a secret."""
    if value.startswith(("$", "%", "{", "<", "[REDACTED", "process.env", "os.")) or any(
        c in "()[]{}" for c in value
    ):
        return True
    if value.isascii() and value.isalpha() and len(value) >= 24 and _random_letters(value):
        return False
    return not any(c.isdigit() for c in value) and all(c.isalpha() or c in "._-" for c in value)


_CONSONANTS = re.compile(r"[b-df-hj-np-tv-z]{4,}", re.IGNORECASE)


def _random_letters(value: str) -> bool:
    """Letters that read as random, not as words run together: few vowels (a random run holds ~19%, words
    run together in identifiers ~35-41%) or several clusters of 4+ consonants, and high entropy."""
    vowels = sum(1 for c in value if c in "aeiouAEIOU") / len(value)
    clusters = len(_CONSONANTS.findall(value))
    return shannon(value) >= 3.7 and (vowels < 0.3 or clusters * 10 >= len(value))


def entropy_findings(text: str) -> list[Finding]:
    """Token runs of 20+ characters with a random-looking segment: no found rule names them, but they
    read as keys. Hex-only tokens (git SHAs, sha256 digests, UUIDs) are spared, and so are segments
    without a digit or that rarely switch between upper case, lower case and digits (identifiers)."""
    _, _, token, separators = _patterns()
    found = []
    for match in token.finditer(text):
        value = match.group(0)
        if not _DIGIT.search(value) or value.isdigit():
            continue  # every random segment needs a digit: most runs (paths, words) stop here
        if any(_random_segment(part) for part in separators.split(value.rstrip("="))):
            found.append(Finding("high-entropy", match.start(), match.end(), "[REDACTED:high-entropy]"))
    return found


def _random_segment(part: str) -> bool:
    if len(part) < MIN_SEGMENT or all(c in "0123456789abcdefABCDEF" for c in part):
        return False
    if not any(c.isdigit() for c in part) or not any(c.isalpha() for c in part):
        return False
    classes = ["d" if c.isdigit() else "u" if c.isupper() else "l" if c.islower() else "o" for c in part]
    switches = sum(1 for a, b in zip(classes, classes[1:], strict=False) if a != b) / (len(part) - 1)
    wordiness = sum(len(word) for word in _WORDS.findall(part)) / len(part)
    entropy = shannon(part)
    if switches < MIN_CLASS_SWITCHES or entropy < MIN_ENTROPY:
        return False
    # A long random run can hold a word or two by chance; its entropy and class switches still give it away.
    return wordiness < MAX_WORDINESS or (wordiness < 0.5 and entropy >= 4.4 and switches >= 0.4)


def home_findings(text: str) -> list[Finding]:
    """Home folders in paths (`/Users/NAME`, `/home/NAME`, `C:\\Users\\NAME`, `/root`), replaced by `~`."""
    if "/Users/" not in text and "/home/" not in text and "/root" not in text and "Users" not in text:
        return []  # the common case, decided without a regex pass
    return [Finding("home-path", m.start(), m.end(), "~") for m in _patterns()[1].finditer(text)]


def secret_findings(text: str) -> list[Finding]:
    """Every secret detector's findings on `text` as it is (gitleaks, own rules, entropy), unmerged."""
    return [*gitleaks_findings(text), *own_findings(text), *entropy_findings(text)]


def hidden_findings(text: str) -> list[Finding]:
    """Secrets that show only once `text` is normalised (`normalise.py`): with its invisible characters
    deleted, or in a run of %XX, hex or \\xNN escapes decoded. Spans are of `text`."""

    def find(view: str) -> list[tuple[str, int, int]]:
        return [(f.rule, f.start, f.end) for f in secret_findings(view) if f.rule != "image"]

    spans = [*normalise.invisible_spans(text, find), *normalise.encoded_spans(text, find)]
    return [Finding(rule, start, end, f"[REDACTED:{rule}]") for rule, start, end in spans]


def all_findings(text: str) -> list[Finding]:
    """Every detector's findings on `text`, secrets first (as written, then hidden forms), then home paths
    (unmerged, unsorted)."""
    return [*secret_findings(text), *hidden_findings(text), *home_findings(text)]
