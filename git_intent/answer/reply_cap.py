"""An HTTP client for litellm that stops reading a model's reply at a byte cap (a 20 MB answer).

litellm sends OpenAI-compatible requests (OpenAI, local servers through `intent.apiBase`) through the
`httpx.Client` in `litellm.client_session`; this one's transport wraps every response body in a stream that
raises `ReplyTooLarge` once more than the cap has arrived, so the rest is never read into memory.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import httpx


class ReplyTooLarge(Exception):
    """A model's reply body passed the byte cap; reading stopped there."""


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, stream: httpx.SyncByteStream, cap: int) -> None:
        self.stream = stream
        self.cap = cap

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self.stream:
            read += len(chunk)
            if read > self.cap:
                raise ReplyTooLarge(f"The reply passed {self.cap} bytes.")
            yield chunk

    def close(self) -> None:
        self.stream.close()


class _CappedTransport(httpx.HTTPTransport):
    def __init__(self, cap: int, proxy: str | None = None) -> None:
        super().__init__(proxy=proxy)
        self.cap = cap

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            extensions=response.extensions,
            stream=_CappedStream(response.stream, self.cap),
        )


def capped_client(cap: int) -> httpx.Client:
    """An httpx client (redirects followed, certificates as httpx reads them, the environment's proxies and
    `no_proxy`) whose responses raise ReplyTooLarge past `cap` bytes.

    httpx reads proxies from the environment only for a client without its own transport, so they are
    mounted here: each proxied scheme, and each `no_proxy` host without one."""
    proxies = urllib.request.getproxies()
    mounts: dict[str, httpx.BaseTransport | None] = {
        f"{scheme}://": _CappedTransport(cap, proxies[scheme])
        for scheme in ("http", "https")
        if proxies.get(scheme)
    }
    for host in (h.strip() for h in proxies.get("no", "").split(",")):
        if host and host != "*":
            mounts[f"all://*{host}" if host.startswith(".") else f"all://{host}"] = _CappedTransport(cap)
    return httpx.Client(transport=_CappedTransport(cap), mounts=mounts, follow_redirects=True)


def over_cap(exc: BaseException) -> bool:
    """Whether `exc`, or an exception it was raised from or during, is ReplyTooLarge (litellm and the
    OpenAI SDK wrap what the transport raises)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ReplyTooLarge) or "ReplyTooLarge" in str(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
