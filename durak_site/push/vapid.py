"""The VAPID key pair that signs this site's pushes (RFC 8292), as base64url text: the private
key as its raw 32 bytes, the public key as the uncompressed point browsers take as
``applicationServerKey``."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def generate() -> tuple[str, str]:
    """A new (private, public) key pair on P-256."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url(private), b64url(public)


def development_keys(path: Path) -> tuple[str, str]:
    """A key pair kept in `path`, made on first use, so that subscriptions survive restarts."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        private, public = generate()
        path.write_text(json.dumps({"private": private, "public": public}))
    keys = json.loads(path.read_text())
    return keys["private"], keys["public"]
