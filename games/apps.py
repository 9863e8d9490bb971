from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from durak_site.accounts.closure import closure_check
        from games.closure import games_closure_problem

        closure_check(games_closure_problem)
