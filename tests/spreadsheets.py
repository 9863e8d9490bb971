"""Reading exported files back as a spreadsheet program would."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import openpyxl

SAMPLES = Path(__file__).resolve().parents[1] / "test-artifacts" / "files"
SCREENSHOTS = SAMPLES.parent / "screenshots"


def keep_sample(name: str, response) -> None:
    """Keep an exported file under test-artifacts/files/ to open it by hand."""
    SAMPLES.mkdir(parents=True, exist_ok=True)
    (SAMPLES / name).write_bytes(response.content)


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[dict]
    filename: str

    def column(self, name: str) -> list:
        return [row[name] for row in self.rows]


def _filename(response) -> str:
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment;"), disposition
    return disposition.split('filename="', 1)[1].rstrip('"')


def read_xlsx(response) -> Table:
    assert response.status_code == 200, response.content[:500]
    book = openpyxl.load_workbook(io.BytesIO(response.content))
    assert len(book.worksheets) == 1
    sheet = book.active
    header, *rows = sheet.iter_rows(values_only=True)
    return Table(
        title=sheet.title,
        header=list(header),
        rows=[dict(zip(header, row, strict=True)) for row in rows],
        filename=_filename(response),
    )


def read_csv(response, *, delimiter: str) -> Table:
    """The CSV as Excel reads it: it must start with a UTF-8 BOM and use ``delimiter``."""
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/csv")
    assert response.content.startswith(b"\xef\xbb\xbf")
    text = response.content.decode("utf-8-sig")
    header, *rows = csv.reader(io.StringIO(text), delimiter=delimiter)
    return Table(
        title="",
        header=header,
        rows=[dict(zip(header, row, strict=True)) for row in rows],
        filename=_filename(response),
    )
