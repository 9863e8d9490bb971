"""Spreadsheet files that open right: XLSX with typed cells, CSV for the admin's language.

Resources hand over native values (aware datetimes, ``Decimal`` amounts in major units, ints,
text); the formats here write them: dates in the site's time zone, a ``Decimal`` as an amount
with two decimals. The CSV follows the conventions of a spreadsheet in the admin's language:
UTF-8 with a BOM (so Excel reads Cyrillic), a semicolon and a decimal comma in Russian, a comma
and a decimal point in English.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal

import openpyxl
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.http import content_disposition_header
from django.utils.text import capfirst, slugify
from django.utils.translation import get_language
from import_export import fields, widgets
from import_export.admin import ExportMixin
from import_export.formats.base_formats import Format
from import_export.forms import ExportForm
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from tablib import Dataset

MONEY_FORMAT = "#,##0.00"
SHEET_NAME_MAX = 31
COLUMN_WIDTH_MAX = 60
# Query parameters of a changelist that page, sort or pick a view rather than filter.
NOT_FILTERS = {"o", "p", "e", "_to_field", "_popup", "_changelist_filters", "all"}


def _russian() -> bool:
    return (get_language() or settings.LANGUAGE_CODE).startswith("ru")


def local_naive(value: datetime) -> datetime:
    """An aware datetime as the site's wall-clock time (spreadsheets keep no time zone)."""
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return value.replace(tzinfo=None)


def zone_label() -> str:
    """The site's time zone as people write it: MSK, UTC, or UTC+03 where it has no name."""
    name = timezone.localtime().strftime("%Z")
    return name if name.isalpha() else f"UTC{name}"


def sheet_name(title: str) -> str:
    """A valid worksheet name: no []:*?/\\ and at most 31 characters."""
    return capfirst(re.sub(r"[\[\]:*?/\\]", " ", title).strip()[:SHEET_NAME_MAX]) or "Sheet"


def csv_cell(value) -> str:
    if value is None:
        return ""
    russian = _russian()
    if isinstance(value, datetime):
        return local_naive(value).strftime("%d.%m.%Y %H:%M:%S" if russian else "%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.strftime("%d.%m.%Y" if russian else "%Y-%m-%d")
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, Decimal | float):
        text = f"{value:.2f}" if isinstance(value, Decimal) else f"{value:g}"
        return text.replace(".", ",") if russian else text
    return force_str(value)


def csv_bytes(headers: Sequence[str], rows: Iterable[Sequence]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if _russian() else ",")
    writer.writerow([capfirst(force_str(header)) for header in headers])
    writer.writerows([csv_cell(value) for value in row] for row in rows)
    return out.getvalue().encode("utf-8-sig")


def xlsx_bytes(title: str, headers: Sequence[str], rows: Iterable[Sequence]) -> bytes:
    """One named sheet; a bold frozen header with a filter; dates and amounts as typed cells."""
    date_format = "DD.MM.YYYY" if _russian() else "YYYY-MM-DD"
    datetime_format = f"{date_format} HH:MM:SS"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = sheet_name(title)
    header = [capfirst(force_str(name)) for name in headers]
    sheet.append(header)
    widths = [len(name) for name in header]
    for row in rows:
        cells = []
        for column, value in enumerate(row):
            if isinstance(value, datetime):
                value = local_naive(value)
            cells.append(value)
            widths[column] = max(widths[column], len(csv_cell(value)))
        sheet.append(cells)
    for row in sheet.iter_rows(min_row=2):
        for cell in row:
            if isinstance(cell.value, datetime):
                cell.number_format = datetime_format
            elif isinstance(cell.value, date):
                cell.number_format = date_format
            elif isinstance(cell.value, Decimal):
                cell.number_format = MONEY_FORMAT
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for column, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(column)].width = min(width + 2, COLUMN_WIDTH_MAX)
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = sheet.dimensions
    # Printed, the sheet fits the width of a landscape page and repeats its header row.
    sheet.page_setup.orientation = "landscape"
    sheet.sheet_properties.pageSetUpPr.fitToPage = True
    sheet.page_setup.fitToWidth = 1
    sheet.page_setup.fitToHeight = 0
    sheet.print_title_rows = "1:1"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


class SpreadsheetFormat(Format):
    """A download format for import-export's admin; it writes bytes itself (CSV with its BOM)."""

    extension: str
    content_type: str

    def get_title(self) -> str:
        return self.extension

    def get_extension(self) -> str:
        return self.extension

    def get_content_type(self) -> str:
        return self.content_type

    def is_binary(self) -> bool:
        return True

    def can_export(self) -> bool:
        return True

    def export_data(self, dataset: Dataset, **kwargs) -> bytes:
        return self.write(dataset.title or "", dataset.headers, dataset)

    def write(self, title: str, headers: Sequence[str], rows: Iterable[Sequence]) -> bytes:
        raise NotImplementedError


class XLSXFile(SpreadsheetFormat):
    extension = "xlsx"
    content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

    def write(self, title: str, headers: Sequence[str], rows: Iterable[Sequence]) -> bytes:
        return xlsx_bytes(title, headers, rows)


class CSVFile(SpreadsheetFormat):
    extension = "csv"
    content_type = "text/csv; charset=utf-8"

    def write(self, title: str, headers: Sequence[str], rows: Iterable[Sequence]) -> bytes:
        return csv_bytes(headers, rows)


EXPORT_FORMATS = {"xlsx": XLSXFile, "csv": CSVFile}


def export_filename(name: str, parts: Iterable[str], extension: str) -> str:
    """``transactions_2026-12-01_2026-12-07_MSK.xlsx``: what, which rows, which time zone."""
    words = [
        name,
        *(slugify(str(part).replace(".", "-"), allow_unicode=True) for part in parts),
        zone_label(),
    ]
    return "_".join(word for word in words if word) + f".{extension}"


def filter_parts(query: dict[str, list[str]]) -> list[str]:
    """The changelist filters as file-name words: the date range first, then other values."""
    since = until = ""
    others = []
    for key, values in sorted(query.items()):
        value = values[-1] if values else ""
        if not value or key in NOT_FILTERS:
            continue
        if key.endswith("__gte") and "date" in key:
            since = value
        elif key.endswith("__lte") and "date" in key:
            until = value
        else:
            others.append(value)
    dates = []
    if since or until:
        dates = [since or "start", until or "today"]
    return dates + others or ["all"]


def file_response(content: bytes, export_format: Format, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=export_format.get_content_type())
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


class PercentWidget(widgets.Widget):
    """A percentage as a plain number (80, 33.3333), not as an amount of money."""

    def render(self, value, obj=None, **kwargs):
        return None if value is None else float(value)


def text_column(header, attribute: str | None = None) -> fields.Field:
    return fields.Field(attribute=attribute, column_name=header, widget=widgets.CharWidget())


def number_column(header, attribute: str) -> fields.Field:
    return fields.Field(attribute=attribute, column_name=header, widget=widgets.IntegerWidget())


def time_column(header, attribute: str) -> fields.Field:
    return fields.Field(attribute=attribute, column_name=header, widget=widgets.DateTimeWidget())


def percent_column(header, attribute: str) -> fields.Field:
    return fields.Field(attribute=attribute, column_name=header, widget=PercentWidget())


class SpreadsheetExportMixin(ExportMixin):
    """Admin export of what the changelist's filters select, XLSX first, then CSV.

    Each resource names its file (``file_name``) and, through ``Meta.name``, its sheet.
    """

    formats = [XLSXFile, CSVFile]
    export_form_class = ExportForm

    def _do_file_export(self, file_format, request: HttpRequest, queryset, export_form=None):
        resource_class = self.choose_export_resource_class(export_form, request)
        # Both formats take native values and do their own formatting.
        dataset = self.get_data_for_export(
            request, queryset, export_form=export_form, force_native_type=True
        )
        dataset.title = force_str(resource_class.get_display_name())
        filename = export_filename(
            resource_class.file_name,
            filter_parts(dict(request.GET.lists())),
            file_format.get_extension(),
        )
        return file_response(file_format.export_data(dataset), file_format, filename)
