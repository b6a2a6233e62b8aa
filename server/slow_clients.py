"""A bound on how long a request may take to arrive (``umpire serve --read-timeout``), as nginx's
``client_header_timeout`` and ``client_body_timeout`` give: uvicorn closes idle keep-alive
connections, but not one that sent half a request line, or its headers and half a body, and then
stalls (a phone that left the club wifi mid-upload, or a slowloris client holding sockets open).

:func:`timed_h11` is uvicorn's h11 protocol with two timers:

- the request head (request line and headers) must arrive within ``read_timeout_s`` of the
  connection opening, or of the first byte of the next request on a kept-alive connection;
- while the body is coming, no more than ``read_timeout_s`` may pass between two reads.

Either way the client gets ``408 Request Timeout`` with the server's JSON error body and the
connection is closed (one that never sent a byte is closed without a word, as nginx does). A
request whose body has arrived is never timed out, however long its ruling takes, and neither
is one whose reading the server itself paused (flow control).
"""

from __future__ import annotations

import asyncio
from typing import Any

#: Seconds a request's head may take to arrive, and a body may go without a byte: as long as
#: nginx's 60 s defaults halved, still far past any phone's upload stalling on a weak signal.
READ_TIMEOUT_S = 30.0


def timeout_answer(read_timeout_s: float) -> bytes:
    """The whole 408 answer, written on the socket as it is (h11 cannot send a response to a
    request it has not fully read)."""
    from server import models as m

    body = m.ErrorBody(error="request_timeout",
                       detail=f"the request did not arrive in time: no complete request head "
                              f"within {read_timeout_s:g} s, or no part of its body for "
                              f"{read_timeout_s:g} s (umpire serve --read-timeout)")
    payload = body.model_dump_json(exclude_none=True).encode()
    head = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: " + str(len(payload)).encode() + b"\r\n\r\n")
    return head + payload


def timed_h11(read_timeout_s: float = READ_TIMEOUT_S) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the read timeouts of the module docstring, for
    ``uvicorn.run(..., http=timed_h11(30))``. Imported only when serving."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    answer = timeout_answer(read_timeout_s)

    class TimedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._read_timer: asyncio.TimerHandle | None = None
            self._read_phase: str | None = None  # "head" or "body" while one is timed

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._time("head")

        def connection_lost(self, exc: Exception | None) -> None:
            self._time(None)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                self._time(None)
                return
            state = self.conn.their_state
            if state is h11.SEND_BODY:
                self._time("body", restart=True)  # between two reads of the body
            elif state is h11.IDLE and self.conn.trailing_data[0]:
                self._time("head")  # part of a request head: from its first byte, in all
            else:
                self._time(None)  # the request is in (or the connection is ending)

        def _time(self, phase: str | None, restart: bool = False) -> None:
            if phase == self._read_phase and not restart:
                return
            if self._read_timer is not None:
                self._read_timer.cancel()
                self._read_timer = None
            self._read_phase = phase
            if phase is not None:
                self._read_timer = self.loop.call_later(read_timeout_s, self._timed_out)

        def _timed_out(self) -> None:
            self._read_timer = None
            if self.transport.is_closing():
                return
            if self.flow.read_paused:  # the server stopped reading, not the client sending
                self._read_phase = None
                self._time("body")
                return
            cycle = self.cycle
            answering = cycle is not None and not cycle.response_complete and \
                cycle.response_started
            # A connection that never sent a byte (a browser's preconnect) is closed without a
            # word, as nginx closes it; a request begun and stalled is told why.
            begun = self._read_phase == "body" or bool(self.conn.trailing_data[0])
            if begun:
                self.logger.info("closing a connection whose request did not arrive in %g s "
                                 "(its %s)", read_timeout_s, self._read_phase)
            self._read_phase = None
            if begun and not answering:
                self.transport.write(answer)
            self.transport.close()

    return TimedH11Protocol
