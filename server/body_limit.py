"""The upload size limit (``umpire serve --max-upload-mb``; DESIGN.md, HTTP: "An upload over the
size limit answers 413 with its JSON body")."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server import models as m


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413, whether the client announced the
    length (refused before reading) or streams it chunked (refused once the count passes).

    It sits outside FastAPI because FastAPI turns any error while parsing a form into a 400; on
    overflow this layer drops whatever the app answered and sends the 413 itself.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    announced = int(value)
                except ValueError:
                    announced = -1
                if announced > self.max_bytes:
                    await self._refuse(send)
                    return
        received = 0
        exceeded = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
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
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        limit_mb = self.max_bytes / 1_000_000
        body = m.ErrorBody(error="too_large",
                           detail=f"the upload is larger than the server's limit of "
                                  f"{limit_mb:g} MB (umpire serve --max-upload-mb)")
        payload = body.model_dump_json(exclude_none=True).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})
