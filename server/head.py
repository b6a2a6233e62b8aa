"""HEAD answers as GET does, without the body (RFC 9110, 9.3.2: "The server SHOULD send the
same header fields in response to a HEAD request as it would have sent if the request method
had been GET"). FastAPI routes name only the methods they declare, so a GET route answered
405 to ``curl -I``, to link checkers and to monitors that probe with HEAD.

The request is handed on as a GET; the answer keeps its status and headers (the
``content-length`` of the body it would have sent) and loses its body. A path with no GET
route answers 405 as before (its ``Allow`` header then says which methods it takes)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def bodiless(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # nothing of the body goes out; the last message ends it
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, bodiless)
