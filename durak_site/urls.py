from django.contrib import admin
from django.urls import include, path

from durak_site import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("", include("wallet.urls")),
    path("", include("games.urls")),
]
