"""The upload size limit (``umpire serve --max-upload-mb``; DESIGN.md, HTTP: "An upload over the
size limit answers 413 with its JSON body in a way that a client still sending the body can
read (curl, Python's urllib, browsers)")."""

from __future__ import annotations

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server import models as m

#: The lingering close's bounds, after nginx's ``lingering_time`` (30 s) and
#: ``lingering_timeout`` (5 s): the refused body is read and thrown away for at most this long
#: in all, and for at most this long without a byte arriving.
LINGER_S = 30.0
LINGER_IDLE_S = 5.0
#: ... and at most this many times the limit, at least this many bytes: a phone photo a few
#: megabytes over the limit is drained whole, a client sending gigabytes is cut off early.
LINGER_LIMITS = 4
LINGER_MIN_BYTES = 64_000_000


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413, whether the client announced the
    length (refused before the app reads it) or streams it chunked (refused once the count
    passes).

    It sits outside FastAPI because FastAPI turns any error while parsing a form into a 400; on
    overflow this layer drops whatever the app answered and sends the 413 itself.

    A refusal is a lingering close, as nginx does it: the 413 is written at once, then the
    rest of the body is read and discarded before the answer is completed and the connection
    closed. Closing with unread bytes in the socket would make the kernel reset the
    connection, and a client still sending (Python's urllib, a browser on a slow link) would
    see the reset instead of the answer. The drain is bounded so that a client sending forever
    cannot hold the connection: it stops after ``linger_s`` seconds in all (default 30), after
    ``linger_idle_s`` seconds without data (default 5), or once ``linger_bytes`` have been
    discarded (default 4 x ``max_bytes``, at least 64 MB); the connection is closed then
    whatever the client is doing. A client that sent ``Expect: 100-continue`` and an announced
    length over the limit is told at once and sends nothing more, so there is nothing to drain.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, linger_s: float = LINGER_S,
                 linger_idle_s: float = LINGER_IDLE_S, linger_bytes: int | None = None) -> None:
        self.app, self.max_bytes = app, max_bytes
        self.linger_s, self.linger_idle_s = linger_s, linger_idle_s
        self.linger_bytes = (max(LINGER_LIMITS * max_bytes, LINGER_MIN_BYTES)
                             if linger_bytes is None else linger_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        if _announced(headers) > self.max_bytes:
            expects = headers.get(b"expect", b"").lower() == b"100-continue"
            await self._refuse(send, None if expects else receive)
            return
        received = 0
        exceeded = body_done = started = False

        async def limited_receive() -> Message:
            nonlocal received, exceeded, body_done
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if received > self.max_bytes:
                    exceeded = True
                    raise _TooLarge()
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not exceeded:
                raise
        if exceeded and not started:
            await self._refuse(send, None if body_done else receive)

    async def _refuse(self, send: Send, drain: Receive | None) -> None:
        """Answer 413 and, when ``drain`` is given, discard the rest of the body before the
        answer is completed (the lingering close of the class docstring)."""
        limit_mb = self.max_bytes / 1_000_000
        body = m.ErrorBody(error="too_large",
                           detail=f"the upload is larger than the server's limit of "
                                  f"{limit_mb:g} MB (umpire serve --max-upload-mb)")
        payload = body.model_dump_json(exclude_none=True).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload, "more_body": True})
        if drain is not None:
            await self._discard(drain)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _discard(self, receive: Receive) -> int:
        """Read and drop request body chunks until the body ends, the client goes, or a bound
        of the class docstring is reached; the number of bytes dropped."""
        dropped = 0
        with anyio.move_on_after(self.linger_s):
            while dropped < self.linger_bytes:
                with anyio.move_on_after(self.linger_idle_s) as idle:
                    message = await receive()
                if idle.cancelled_caught or message["type"] != "http.request":
                    break
                dropped += len(message.get("body", b""))
                if not message.get("more_body", False):
                    break
        return dropped


def _announced(headers: dict[bytes, bytes]) -> int:
    """The body length the client announced (Content-Length), or -1."""
    try:
        return int(headers.get(b"content-length", b"-1"))
    except ValueError:
        return -1
