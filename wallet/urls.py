from django.urls import path

from wallet import views

urlpatterns = [
    path("wallet/", views.wallet, name="wallet"),
    path("wallet/chips/", views.chips_top_up, name="chips_top_up"),
    path("wallet/deposit/", views.deposit, name="deposit"),
    path("wallet/deposit/<uuid:reference>/", views.deposit_status, name="deposit_status"),
    path("wallet/withdraw/", views.withdraw, name="withdraw"),
    path("wallet/limits/", views.limits_page, name="limits"),
    path(
        "wallet/withdraw/<int:withdrawal_id>/cancel/",
        views.withdrawal_cancel,
        name="withdrawal_cancel",
    ),
    path(
        "wallet/payments/<slug:provider_code>/notify/",
        views.payment_notify,
        name="payment_notify",
    ),
    path(
        "wallet/payments/test/<uuid:reference>/",
        views.payment_test_page,
        name="payment_test_page",
    ),
]
