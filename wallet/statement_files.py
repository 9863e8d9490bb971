"""A statement as files: XLSX (typed cells) and PDF (rendered on the server with fpdf2).

The PDF uses PT Sans, a ParaType face made for Cyrillic, shipped in the fontpkg-pt-sans
package, so it renders the same on any machine without system fonts.
"""

from __future__ import annotations

import fontpkg_pt_sans
from django.utils import formats, timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from fpdf import FPDF
from fpdf.fonts import FontFace

from durak_site.staff.exports import local_naive, xlsx_bytes, zone_label
from wallet.money import format_money, major_units, money_label
from wallet.statements import Statement

FONT = "PTSans"
FONT_FILES = {"": "PT_Sans-Web-Regular.ttf", "B": "PT_Sans-Web-Bold.ttf"}
# Column widths in millimetres on an A4 page with 12 mm margins (186 mm of text width).
COLUMN_WIDTHS = (30, 46, 50, 30, 30)


def owner(statement: Statement) -> str:
    return str(statement.account.user or statement.account)


def _headers() -> list[str]:
    return [
        capfirst(_("date and time")),
        capfirst(_("kind")),
        capfirst(_("description")),
        capfirst(money_label(_("amount"))),
        capfirst(money_label(_("balance"))),
    ]


def statement_xlsx(statement: Statement) -> bytes:
    """Opening balance, one row per movement, closing balance; dates and amounts typed."""
    rows = [
        [statement.since, _("Opening balance"), "", None, major_units(statement.opening_balance)]
    ]
    rows += [
        [
            line.at,
            line.kind,
            line.description,
            major_units(line.amount),
            major_units(line.balance_after),
        ]
        for line in statement.lines
    ]
    rows.append(
        [
            statement.until,
            _("Closing balance"),
            "",
            major_units(statement.credits + statement.debits),
            major_units(statement.closing_balance),
        ]
    )
    return xlsx_bytes(f"{_('Statement')} {owner(statement)}", _headers(), rows)


class _StatementPDF(FPDF):
    def __init__(self, title: str) -> None:
        super().__init__(orientation="portrait", unit="mm", format="A4")
        self.statement_title = title
        self.set_margins(12, 12, 12)
        self.set_auto_page_break(auto=True, margin=16)
        for style, filename in FONT_FILES.items():
            self.add_font(FONT, style, fontpkg_pt_sans.ROOT / "files" / filename)

    def header(self) -> None:
        self.set_font(FONT, "", 8)
        self.cell(0, 5, self.statement_title, align="R", new_x="LMARGIN", new_y="NEXT")
        self.ln(2)

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FONT, "", 8)
        page = _("Page %(page)s of %(pages)s") % {"page": self.page_no(), "pages": "{nb}"}
        self.cell(0, 5, page, align="C")


def statement_pdf(statement: Statement) -> bytes:
    def day(value) -> str:
        return formats.date_format(value, "SHORT_DATE_FORMAT")

    title = _("Statement of %(owner)s, %(since)s – %(until)s") % {
        "owner": owner(statement),
        "since": day(statement.since),
        "until": day(statement.until),
    }
    pdf = _StatementPDF(title)
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font(FONT, "B", 15)
    pdf.cell(0, 8, _("Wallet statement"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FONT, "", 10)
    facts = [
        (_("Player"), owner(statement)),
        (_("Period"), f"{day(statement.since)} – {day(statement.until)} ({zone_label()})"),
        (_("Opening balance"), format_money(statement.opening_balance)),
        (_("Credits"), format_money(statement.credits, signed=True)),
        (_("Debits"), format_money(statement.debits)),
        (_("Closing balance"), format_money(statement.closing_balance)),
        (_("Printed"), formats.date_format(local_naive(timezone.now()), "SHORT_DATETIME_FORMAT")),
    ]
    for label, value in facts:
        pdf.cell(45, 6, label)
        pdf.cell(0, 6, value, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font(FONT, "", 9)
    headings = FontFace(emphasis="BOLD", fill_color=(230, 230, 230))
    with pdf.table(
        col_widths=COLUMN_WIDTHS,
        text_align=("LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT"),
        headings_style=headings,
        line_height=5,
        repeat_headings=1,
    ) as table:
        table.row(_headers())
        for line in statement.lines:
            table.row(
                [
                    formats.date_format(local_naive(line.at), "SHORT_DATETIME_FORMAT"),
                    capfirst(line.kind),
                    line.description,
                    format_money(line.amount, signed=True),
                    format_money(line.balance_after),
                ]
            )
    if not statement.lines:
        pdf.cell(0, 6, _("No movements in this period."), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
