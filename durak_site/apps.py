from django.apps import AppConfig


class DurakSiteConfig(AppConfig):
    name = "durak_site"
    verbose_name = "Durak"

    def ready(self) -> None:
        # Connects the signals that close sockets when their session ends.
        from durak_site.ops.json_logs import log_uncaught_exceptions
        from durak_site.sockets import session_closes  # noqa: F401

        log_uncaught_exceptions()
