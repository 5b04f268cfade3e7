"""The fidelities a user chose for one session, stored per session and reversible: the levels, their file,
and changing one (`set_level`). Rendering at those levels is `budget.render_context`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.errors import IntentError
from ..core.state_files import private_dir, replace_file

__all__ = ["LEVELS", "STATE_SCHEMA", "FidelityError", "FidelityState", "Level", "MessageLevel", "set_level"]

Level = Literal["full", "summary", "compressed", "placeholder", "hidden"]
MessageLevel = Literal["full", "summary", "hidden"]
LEVELS: tuple[Level, ...] = get_args(Level)
STATE_SCHEMA = "git-intent-fidelity/1"


class FidelityError(IntentError):
    """A fidelity target or level is not valid, or the fidelity file cannot be read."""


class FidelityState(BaseModel):
    """The fidelities a user chose for one session: per topic (`"t3": "placeholder"`) and per message
    (`"MESSAGE_ID": "full" | "summary" | "hidden"`, an id or unique prefix). Stored as JSON; a view only,
    so any choice can be undone (`set_level(state, target, "auto")`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: str = Field(default=STATE_SCHEMA, alias="schema")
    topics: dict[str, Level] = Field(default_factory=dict)
    messages: dict[str, MessageLevel] = Field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> FidelityState:
        """The state saved at `path`; an empty state when the file does not exist.

        Raises FidelityError when the file is not a fidelity state."""
        try:
            return cls.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return cls()
        except (OSError, ValidationError) as exc:
            raise FidelityError(
                f"The fidelity file {path} cannot be read: {exc}.",
                hint="Delete it to start from the default fidelities.",
            ) from exc

    def save(self, path: Path) -> None:
        """Write the state to `path` atomically (a temporary file renamed over it), readable by the owner
        only (0600); the folder is created when missing."""
        private_dir(path.parent)
        replace_file(path, (self.model_dump_json(by_alias=True, indent=1) + "\n").encode("utf-8"), fsync=True)


def set_level(state: FidelityState, target: str, level: str) -> FidelityState:
    """A copy of `state` with `target` at `level`. `target` is a topic id ("t3") or ":MESSAGE_ID";
    a topic takes any of LEVELS, a message "full", "summary" or "hidden"; "auto" removes the choice.

    Raises FidelityError for a malformed target or a level the target cannot take."""
    topics, messages = dict(state.topics), dict(state.messages)
    if target.startswith(":") and len(target) > 1:
        if level not in ("full", "summary", "hidden", "auto"):
            raise FidelityError(
                f"A message can be shown full, summary or hidden, not {level!r}.",
                hint="Give a topic id (t1, t2, …) to set compressed or placeholder.",
            )
        if level == "auto":
            messages.pop(target[1:], None)
        else:
            messages[target[1:]] = level  # type: ignore[assignment]  # checked just above
    elif re.fullmatch(r"t[1-9]\d*", target):
        if level not in (*LEVELS, "auto"):
            raise FidelityError(f"{level!r} is not a fidelity; use one of {', '.join(LEVELS)} or auto.")
        if level == "auto":
            topics.pop(target, None)
        else:
            topics[target] = level  # type: ignore[assignment]  # checked just above
    else:
        raise FidelityError(
            f"{target!r} names no topic or message.",
            hint="Give a topic id such as t3, or a message as :MESSAGE_ID.",
        )
    return state.model_copy(update={"topics": topics, "messages": messages})
