from django.apps import AppConfig


class DurakSiteConfig(AppConfig):
    name = "durak_site"
    verbose_name = "Durak"

    def ready(self) -> None:
        # Connects the signals that close sockets when their session ends.
        from durak_site import sockets  # noqa: F401
        from durak_site.logging import log_uncaught_exceptions

        log_uncaught_exceptions()
