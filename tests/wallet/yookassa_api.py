"""A local stand-in for the YooKassa API (v3): payments and refunds, as the SDK calls them.

It keeps what it is asked in memory, checks Basic authentication and the Idempotence-Key
header, answers a repeated key with the first answer, and lets a test play the player and
YooKassa's side (pay, cancel). Notification bodies are built from the recorded ones in
``yookassa/``, in YooKassa's documented format.
"""

from __future__ import annotations

import base64
import copy
import json
import threading
import uuid
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RECORDED = Path(__file__).with_name("yookassa")
SHOP_ID = "466593"
SECRET_KEY = "test_stand-in-secret"


def recorded_notification(event: str, api_payment: dict) -> bytes:
    """The recorded body of ``event``, about ``api_payment`` (its id, amount and metadata)."""
    body = json.loads((RECORDED / f"{event}.json").read_text())
    body["object"].update(
        id=api_payment["id"],
        amount=api_payment["amount"],
        metadata=api_payment["metadata"],
    )
    return json.dumps(body).encode()


class YooKassaStandIn:
    def __init__(self) -> None:
        self.payments: dict[str, dict] = {}
        self.refunds: dict[str, dict] = {}
        self.answers: dict[str, tuple[int, dict]] = {}  # by idempotence key
        self.calls: list[tuple[str, str, dict | None]] = []
        self.refund_outcome = "succeeded"
        self.lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(*stand_in.get(self.path))

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                data = json.loads(body) if body else {}
                key = self.headers.get("Idempotence-Key")
                self._answer(*stand_in.post(self.path, data, key))

            def _answer(self, status: int, data: dict) -> None:
                expected = "Basic " + base64.b64encode(f"{SHOP_ID}:{SECRET_KEY}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    status, data = 401, {"type": "error", "code": "invalid_credentials"}
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.api_url = f"{self.origin}/v3"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- the API -----------------------------------------------------------------------------

    def get(self, path: str) -> tuple[int, dict]:
        with self.lock:
            self.calls.append(("GET", path, None))
            parts = path.strip("/").split("/")
            table = {"payments": self.payments, "refunds": self.refunds}.get(parts[1])
            if len(parts) == 3 and table is not None and parts[2] in table:
                return 200, copy.deepcopy(table[parts[2]])
            return 404, {"type": "error", "code": "not_found", "description": "no such object"}

    def post(self, path: str, data: dict, key: str | None) -> tuple[int, dict]:
        with self.lock:
            self.calls.append(("POST", path, data))
            if not key:
                return 400, {"type": "error", "code": "invalid_request", "parameter": "key"}
            if key in self.answers:
                return self.answers[key]
            answer = self._post(path.strip("/").split("/"), data)
            self.answers[key] = answer
            return answer

    def _post(self, parts: list[str], data: dict) -> tuple[int, dict]:
        if parts[1:] == ["payments"]:
            payment_id = f"{uuid.uuid4().hex[:8]}-000f-5000-a000-{uuid.uuid4().hex[:12]}"
            self.payments[payment_id] = {
                "id": payment_id,
                "status": "pending",
                "paid": False,
                "amount": data["amount"],
                "description": data.get("description", ""),
                "recipient": {"account_id": SHOP_ID, "gateway_id": "2323500"},
                "created_at": "2026-12-04T09:49:14.459Z",
                "confirmation": {
                    "type": "redirect",
                    "return_url": data["confirmation"]["return_url"],
                    "confirmation_url": f"{self.origin}/checkout/{payment_id}",
                },
                "test": True,
                "refundable": False,
                "metadata": data.get("metadata", {}),
            }
            return 200, copy.deepcopy(self.payments[payment_id])
        if parts[1] == "payments" and len(parts) == 4 and parts[2] in self.payments:
            payment = self.payments[parts[2]]
            if payment["status"] != "waiting_for_capture":
                return 400, {"type": "error", "code": "invalid_request", "description": "state"}
            if parts[3] == "capture":
                payment.update(status="succeeded", refundable=True, amount=data["amount"])
            else:
                payment.update(
                    status="canceled",
                    paid=False,
                    cancellation_details={"party": "merchant", "reason": "canceled_by_merchant"},
                )
            return 200, copy.deepcopy(payment)
        if parts[1:] == ["refunds"]:
            payment = self.payments.get(data["payment_id"])
            if payment is None or payment["status"] != "succeeded":
                return 400, {"type": "error", "code": "invalid_request"}
            refund_id = f"{uuid.uuid4().hex[:8]}-0015-5000-8000-{uuid.uuid4().hex[:12]}"
            self.refunds[refund_id] = {
                "id": refund_id,
                "payment_id": data["payment_id"],
                "status": self.refund_outcome,
                "amount": data["amount"],
                "created_at": "2026-12-04T10:00:00.000Z",
                "description": data.get("description", ""),
            }
            return 200, copy.deepcopy(self.refunds[refund_id])
        return 404, {"type": "error", "code": "not_found"}

    # --- the player's and YooKassa's side ----------------------------------------------------

    def pay(self, payment_id: str, *, last4: str = "4477") -> dict:
        """The player pays by card: the money is held for the shop to capture."""
        with self.lock:
            payment = self.payments[payment_id]
            payment.update(
                status="waiting_for_capture",
                paid=True,
                payment_method={
                    "type": "bank_card",
                    "id": payment_id,
                    "saved": False,
                    "title": f"Bank card *{last4}",
                    "card": {
                        "first6": "555555",
                        "last4": last4,
                        "expiry_year": "2027",
                        "expiry_month": "02",
                        "card_type": "MasterCard",
                    },
                },
            )
            return copy.deepcopy(payment)

    def cancel(self, payment_id: str) -> dict:
        """The player gave up, or YooKassa refused the card."""
        with self.lock:
            payment = self.payments[payment_id]
            payment.update(
                status="canceled",
                cancellation_details={"party": "yoo_money", "reason": "expired_on_confirmation"},
            )
            return copy.deepcopy(payment)

    def captures(self, payment_id: str) -> int:
        return sum(
            1
            for method, path, _ in self.calls
            if method == "POST" and path == f"/v3/payments/{payment_id}/capture"
        )

    def amount_of(self, payment_id: str) -> Decimal:
        return Decimal(self.payments[payment_id]["amount"]["value"])
