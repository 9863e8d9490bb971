from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from durak_site.accounts import views as account_views
from durak_site.ops import health
from durak_site.push import views as push_views
from durak_site.web import app_shell, views

admin.site.site_header = _("Durak: staff")
admin.site.site_title = _("Durak: staff")
admin.site.index_title = _("Platform administration")
# Staff sign in through allauth's login, with its second factor and throttles.
admin.site.login = secure_admin_login(admin.site.login)

handler500 = views.server_error

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("manifest.webmanifest", app_shell.manifest, name="manifest"),
    path("sw.js", app_shell.service_worker, name="service_worker"),
    path("offline/", app_shell.offline, name="offline"),
    path("push/subscription/", push_views.subscription, name="push_subscription"),
    path("settings/table/", views.table_settings, name="table_settings"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/close/", account_views.close_account, name="account_close"),
    path("accounts/identity/", account_views.identity_page, name="identity"),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("", include("wallet.urls")),
    path("", include("games.urls")),
    path("", include("tournaments.urls")),
]
