from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from durak_site.accounts.closure import closure_check
        from tournaments.closure import tournaments_closure_problem

        closure_check(tournaments_closure_problem)
