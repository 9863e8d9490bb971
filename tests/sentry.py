"""A small local stand-in for Sentry's ingest endpoint: it accepts the SDK's envelopes and keeps
the events and cron check-ins in them, for tests of error reports."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def envelope_items(body: bytes) -> list[tuple[dict, bytes]]:
    """The items of one envelope: a header line, then each item's header line and payload
    (``length`` bytes when the header gives it, else up to the next newline)."""
    _envelope_header, _, rest = body.partition(b"\n")
    items = []
    while rest.strip():
        header_line, _, rest = rest.partition(b"\n")
        header = json.loads(header_line)
        if "length" in header:
            payload, rest = rest[: header["length"]], rest[header["length"] + 1 :]
        else:
            payload, _, rest = rest.partition(b"\n")
        items.append((header, payload))
    return items


class SentryStandIn(ThreadingHTTPServer):
    """Accepts envelopes at /api/<project>/envelope/ and keeps the events among them."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _EnvelopeHandler)
        self.events: list[dict] = []
        self.check_ins: list[dict] = []
        self.raw: list[bytes] = []

    @property
    def dsn(self) -> str:
        return f"http://publickey@127.0.0.1:{self.server_address[1]}/1"

    def wait_for(self, wanted, timeout: float = 20, *, among: str = "events") -> dict:
        """The first event (or check-in) for which ``wanted`` is true, once it has arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for item in list(getattr(self, among)):
                if wanted(item):
                    return item
            time.sleep(0.05)
        raise AssertionError(f"none such among {getattr(self, among)}")


class _EnvelopeHandler(BaseHTTPRequestHandler):
    server: SentryStandIn

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        assert self.path == "/api/1/envelope/", self.path
        self.server.raw.append(body)
        for header, payload in envelope_items(body):
            if header["type"] == "event":
                self.server.events.append(json.loads(payload))
            elif header["type"] == "check_in":
                self.server.check_ins.append(json.loads(payload))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args) -> None:
        pass


@contextmanager
def sentry_stand_in() -> Iterator[SentryStandIn]:
    stand_in = SentryStandIn()
    thread = threading.Thread(target=stand_in.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        stand_in.shutdown()
        stand_in.server_close()
