from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament_detail"),
    path(
        "tournaments/<int:tournament_id>/<slug:command>/",
        views.tournament_command,
        name="tournament_command",
    ),
]
