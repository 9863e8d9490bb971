from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WalletConfig(AppConfig):
    name = "wallet"
    verbose_name = _("Wallet")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from durak_site.accounts.closure import closure_check
        from wallet import checks  # noqa: F401  (registers the deployment checks)
        from wallet.closure import wallet_closure_problem

        closure_check(wallet_closure_problem)
