"""The sub-agent's tool loop, and the annotator's plain completions, through litellm: the only module that
imports litellm, lazily.

litellm costs seconds to import and fetches a model cost map over the network unless
LITELLM_LOCAL_MODEL_COST_MAP is set first (docs/design.md); its 1.106 line raises `ModuleNotFoundError: mcp`
on any `completion()` with `tools` unless `_skip_mcp_handler=True` is passed.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..config import ModelSettings
from ..core.errors import IntentError
from .prompt import FINAL, data_block
from .tools import SPECS, Toolbox

MAX_CALLS_PER_STEP = 8  # tool calls run per model reply; more get an error result
# A 20 MB model answer made `why` run 184 s and print 20 MB. A reply body over MAX_REPLY_BYTES is
# not read further (OpenAI-compatible providers, through the HTTP client given to litellm); an answer is cut
# at MAX_ANSWER_CHARS (a why answer is a few paragraphs: ~1,500 characters measured), tool arguments at
# MAX_ARGUMENT_CHARS.
MAX_REPLY_BYTES = 4 * 1024 * 1024
MAX_ANSWER_CHARS = 16_000
MAX_ARGUMENT_CHARS = 16_000
_LOCAL_KEY = "sk-local-no-key"  # OpenAI-compatible local servers want some key; none is configured


class ModelError(Exception):
    """A model call failed (HTTP error, unreachable, timeout): the answer falls back to offline."""


@dataclass
class AgentRun:
    """What the loop produced: the model's answer text (None when it gave none), model calls made,
    tokens the provider counted, and the limit that stopped it."""

    text: str | None = None
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reached: str | None = None
    error: str | None = None
    transcript: list[dict[str, Any]] = field(default_factory=list)


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    module: Any = importlib.import_module("litellm")
    module.suppress_debug_info = True
    module.telemetry = False
    if module.client_session is None:
        from .reply_cap import capped_client

        module.client_session = capped_client(MAX_REPLY_BYTES)
    return module


def check_model(settings: ModelSettings) -> None:
    """Raise IntentError when litellm cannot tell which provider `settings.model` belongs to."""
    litellm = _litellm()
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # litellm prints a provider list on failure
            litellm.get_llm_provider(settings.model, api_base=settings.api_base)
    except Exception as exc:
        raise IntentError(
            f"{settings.model!r} is not a model string litellm knows.",
            hint="Name the provider too, e.g. openai/gpt-4o-mini, anthropic/claude-sonnet-4-5 "
            "or ollama/llama3 (git config intent.model …).",
        ) from exc


def run_agent(settings: ModelSettings, system: str, first: str, toolbox: Toolbox, boundary: str) -> AgentRun:
    """Run the tool loop: at most `settings.max_steps` model calls; the last one (or the first after the
    reading limit) is told to answer without tools. Tool results go back as data blocks. A call that
    fails or takes more than `settings.timeout` seconds ends the run with `error`, one sentence."""
    litellm = _litellm()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": first},
    ]
    run = AgentRun(transcript=messages)
    try:
        _loop(litellm, settings, messages, toolbox, boundary, run)
    except ModelError as exc:
        run.error = str(exc)
    return run


def _loop(
    litellm: Any,
    settings: ModelSettings,
    messages: list[dict[str, Any]],
    toolbox: Toolbox,
    boundary: str,
    run: AgentRun,
) -> None:
    for step in range(1, settings.max_steps + 1):
        final = step == settings.max_steps or toolbox.exhausted
        if final:
            reason = "token" if toolbox.exhausted else "step"
            run.reached = "tokens" if toolbox.exhausted else "steps"
            messages.append({"role": "user", "content": FINAL.format(reason=reason)})
        run.steps = step  # counted before the call: a call that fails was made ("1 model call failed")
        reply = _complete(litellm, settings, messages, final=final)
        usage = getattr(reply, "usage", None)
        run.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        run.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        choices = getattr(reply, "choices", None) or []
        if not choices or getattr(choices[0], "message", None) is None:
            raise ModelError(f"The model {settings.model} returned a reply without a message.")
        message = choices[0].message
        calls = list(getattr(message, "tool_calls", None) or [])
        if not calls or final:
            text = (message.content or "").strip()
            if text and not calls:
                run.text = cut_answer(text)
            return
        messages.append(
            {
                "role": "assistant",
                "content": cut_answer(message.content or ""),
                "tool_calls": [
                    {
                        "id": call.id or f"call_{uuid.uuid4().hex[:12]}",
                        "type": "function",
                        "function": {
                            "name": call.function.name,
                            "arguments": call.function.arguments or "{}",
                        },
                    }
                    for call in calls
                ],
            }
        )
        for n, call in enumerate(messages[-1]["tool_calls"]):
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            if len(arguments) > MAX_ARGUMENT_CHARS:
                call["function"]["arguments"] = "{}"
                result = f"error: tool arguments are limited to {MAX_ARGUMENT_CHARS} characters."
            else:
                result = (
                    toolbox.call(name, arguments)
                    if n < MAX_CALLS_PER_STEP
                    else f"error: at most {MAX_CALLS_PER_STEP} tool calls are run per reply."
                )
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": data_block(boundary, f"result of {name}", result),
                }
            )


def cut_answer(text: str) -> str:
    """`text` cut at MAX_ANSWER_CHARS characters, with a line saying so."""
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    return (
        f"{text[:MAX_ANSWER_CHARS]}\n[… the model's answer was cut at {MAX_ANSWER_CHARS:,} of {len(text):,} "
        "characters]"
    )


def chat(settings: ModelSettings, messages: list[dict[str, Any]]) -> tuple[str, int, int]:
    """One completion without tools (the annotator's): the reply's text, and the prompt and completion
    tokens the provider counted. Raises ModelError when the call fails or the reply holds no message."""
    reply = _complete(_litellm(), settings, messages, tools=False)
    usage = getattr(reply, "usage", None)
    choices = getattr(reply, "choices", None) or []
    if not choices or getattr(choices[0], "message", None) is None:
        raise ModelError(f"The model {settings.model} returned a reply without a message.")
    return (
        cut_answer(choices[0].message.content or ""),
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
    )


def complete_once(settings: ModelSettings, system: str, user: str) -> AgentRun:
    """One model call without tools (an observer's or a summariser's): the reply's text, tokens counted,
    and `error` (one sentence) when the call failed or took more than `settings.timeout` seconds."""
    litellm = _litellm()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    run = AgentRun(transcript=messages, steps=1)
    try:
        reply = _complete(litellm, settings, messages, final=False, tools=False)
    except ModelError as exc:
        run.error = str(exc)
        return run
    usage = getattr(reply, "usage", None)
    run.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    run.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    choices = getattr(reply, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    run.text = cut_answer((getattr(message, "content", None) or "").strip()) or None
    return run


def _complete(
    litellm: Any,
    settings: ModelSettings,
    messages: list[dict[str, Any]],
    *,
    final: bool = False,
    tools: bool = True,
) -> Any:
    kwargs: dict[str, Any] = {
        "model": settings.model,
        "messages": messages,
        "timeout": settings.timeout,
        "num_retries": 0,
        "max_retries": 0,
    }
    if tools:
        kwargs["tools"] = SPECS
        kwargs["_skip_mcp_handler"] = True  # litellm 1.106 imports `mcp` for any call with tools otherwise
    if final:
        kwargs["tool_choice"] = "none"
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
        _, provider, _, _ = litellm.get_llm_provider(settings.model, api_base=settings.api_base)
        if provider in ("openai", "hosted_vllm", "openai_like") and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = _LOCAL_KEY
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return litellm.completion(**kwargs)
    except Exception as exc:  # litellm maps every provider failure to its own exception types
        from .reply_cap import over_cap

        if over_cap(exc):
            where = f" at {settings.api_base}" if settings.api_base else ""
            raise ModelError(
                f"The model {settings.model}{where} sent a reply over {MAX_REPLY_BYTES:,} bytes; "
                "it was not read further."
            ) from exc
        raise ModelError(_sentence(settings, exc)) from exc


def _sentence(settings: ModelSettings, exc: Exception) -> str:
    """One sentence on why the model call failed."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    where = f" at {settings.api_base}" if settings.api_base else ""
    if "Timeout" in name:
        return (
            f"The model {settings.model}{where} did not answer within {settings.timeout:g} s "
            "(intent.timeout)."
        )
    if "Connection" in name or _refused(exc):
        # litellm reports a refused connection as an InternalServerError with status 500: not what happened.
        return (
            f"The model {settings.model}{where} could not be reached (the connection was refused or failed)."
        )
    detail = " ".join(str(exc).split())[:200]
    code = f" (HTTP {status})" if isinstance(status, int) else ""
    return f"The model {settings.model}{where} failed{code}: {detail}"


def _refused(exc: BaseException) -> bool:
    """Whether `exc` or what caused it is a failed connection (refused, reset, no route, unknown host)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if (
            isinstance(current, ConnectionError)
            or "Connect" in type(current).__name__
            or any(text in str(current) for text in ("Connection refused", "Connection error", "Errno 111"))
        ):
            return True
        current = current.__cause__ or current.__context__
    return False
