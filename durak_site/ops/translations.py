"""Compile the project's .po catalogs to .mo with pure Python (no GNU gettext needed)."""

from __future__ import annotations

from pathlib import Path

import polib

PROJECT_APPS = ("durak_site", "games", "wallet", "tournaments")


def compile_catalogs(base_dir: Path) -> list[Path]:
    """Compile every catalog whose .mo is missing or older than its .po; return those written."""
    written = []
    for app in PROJECT_APPS:
        for po_path in sorted((base_dir / app / "locale").glob("*/LC_MESSAGES/*.po")):
            mo_path = po_path.with_suffix(".mo")
            if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                continue
            polib.pofile(str(po_path)).save_as_mofile(str(mo_path))
            written.append(mo_path)
    return written
