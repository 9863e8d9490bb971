"""The staff report pages: the operations report and its export (figures from
``games.selectors.reports``), and the fair-play signals (``games.selectors.fairplay``) with a
block from there."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from durak_site.staff.exports import (
    EXPORT_FORMATS,
    SpreadsheetFormat,
    export_filename,
    file_response,
    zone_label,
)
from games import services
from games.errors import GameError
from games.forms import OperationsReportForm, ReportPeriodForm, StakeBlockQuickForm
from games.selectors import fairplay
from games.selectors.reports import (
    Bucket,
    Column,
    OperationsReport,
    operations_report,
    report_columns,
)
from wallet.models import Account
from wallet.money import major_units, money_label

CHART_WIDTH, CHART_HEIGHT = 720, 220
# The chart's lines: the bucket's figure, its label and the CSS class that colours it.
CHART_LINES = [
    ("stakes_held", gettext_lazy("stakes held"), "stakes"),
    ("banks_settled", gettext_lazy("banks settled"), "banks"),
    ("deposits", gettext_lazy("deposits"), "deposits"),
    ("commission", gettext_lazy("house commission"), "commission"),
]


def chart(report: OperationsReport) -> dict:
    """Polylines (SVG points in a CHART_WIDTH x CHART_HEIGHT box) of the main money lines."""
    series = {name: [getattr(b, name) for b in report.buckets] for name, _l, _c in CHART_LINES}
    top = max((value for values in series.values() for value in values), default=0) or 1
    step = CHART_WIDTH / max(len(report.buckets) - 1, 1)
    lines = [
        {
            "label": label,
            "css": css,
            "points": " ".join(
                f"{index * step:.1f},{CHART_HEIGHT - value / top * CHART_HEIGHT:.1f}"
                for index, value in enumerate(series[name])
            ),
        }
        for name, label, css in CHART_LINES
    ]
    return {"width": CHART_WIDTH, "height": CHART_HEIGHT, "top": top, "lines": lines}


def column_header(column: Column) -> str:
    """A column's head; money columns name the currency: «Ставки приняты, ₽»."""
    return money_label(column.label) if column.unit == "money" else column.label


def _cell(value, unit: str):
    if value is None:
        return None
    if unit == "money":
        return major_units(value)
    if unit == "minutes":
        return round(value, 1)
    return value


def table_rows(report: OperationsReport, columns: list[Column]) -> list[list]:
    """Rows for a spreadsheet: the period's first day, then every figure; the total last."""

    def row(first, bucket: Bucket) -> list:
        return [first, *(_cell(column.value(bucket), column.unit) for column in columns)]

    return [row(b.start, b) for b in report.buckets] + [row(_("Total"), report.total)]


def operations_view(model_admin, request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    form = OperationsReportForm(
        request.GET or {"since": today - timedelta(days=29), "until": today, "grouping": "day"}
    )
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": _("Operations report"),
        "form": form,
    }
    if form.is_valid():
        data = form.cleaned_data
        report = operations_report(
            since=data["since"], until=data["until"], grouping=data["grouping"]
        )
        columns = report_columns(report)
        export_format = EXPORT_FORMATS.get(request.GET.get("format", ""))
        if export_format is not None:
            return _export(report, columns, export_format())
        query = urlencode(
            {"since": data["since"], "until": data["until"], "grouping": data["grouping"]}
        )
        context.update(
            report=report,
            headers=[column_header(column) for column in columns],
            rows=[(b, [(c.value(b), c.unit) for c in columns]) for b in report.buckets],
            total=[(c.value(report.total), c.unit) for c in columns],
            chart=chart(report),
            query=query,
            zone=zone_label(),
            kinds=[
                (
                    label,
                    report.total.moved[kind],
                    report.total.net[Account.Kind.USER][kind],
                    report.total.net[Account.Kind.HOUSE][kind],
                )
                for kind, label in report.kinds
            ],
        )
    return TemplateResponse(request, "games/admin/operations_report.html", context)


def _export(
    report: OperationsReport, columns: list[Column], export_format: SpreadsheetFormat
) -> HttpResponse:
    headers = [_("period"), *(column_header(column) for column in columns)]
    content = export_format.write(_("Operations report"), headers, table_rows(report, columns))
    filename = export_filename(
        "operations",
        [report.since.isoformat(), report.until.isoformat(), report.grouping],
        export_format.get_extension(),
    )
    return file_response(content, export_format, filename)


def fair_play_view(model_admin, request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    form = ReportPeriodForm(request.GET or {"since": today - timedelta(days=29), "until": today})
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": _("Fair-play signals"),
        "form": form,
        "thresholds": fairplay,
        "may_block": request.user.has_perm("games.add_stakeblock"),
    }
    if form.is_valid():
        report = fairplay.fair_play_report(**form.cleaned_data)
        context.update(
            report=report,
            query=urlencode(form.cleaned_data),
            block_forms=[
                (user, report.blocks.get(user.pk), StakeBlockQuickForm(initial={"user": user}))
                for user in report.flagged_users
            ],
        )
    return TemplateResponse(request, "games/admin/fair_play.html", context)


def fair_play_block(model_admin, request: HttpRequest) -> HttpResponse:
    """Block a flagged player from tables with stakes, then back to the same report."""
    form = StakeBlockQuickForm(request.POST)
    if not form.is_valid():
        errors = [error for errors in form.errors.values() for error in errors]
        messages.error(request, " ".join(errors))
    else:
        user = form.cleaned_data["user"]
        try:
            services.stake_block_create(
                staff_user=request.user,
                user=user,
                reason=form.cleaned_data["reason"],
                ends_at=form.ends_at,
            )
        except GameError as error:
            messages.error(request, error.message)
        else:
            messages.success(
                request, _("%(player)s is blocked from tables with stakes.") % {"player": user}
            )
    period = ReportPeriodForm(request.GET)
    query = f"?{urlencode(period.cleaned_data)}" if period.is_valid() else ""
    return redirect(reverse("admin:games_fair_play") + query)
