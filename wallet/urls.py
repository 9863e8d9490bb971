from django.urls import path

from wallet import views

urlpatterns = [path("wallet/", views.wallet, name="wallet")]
