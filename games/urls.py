from django.urls import path

from games import views

urlpatterns = [
    path("rules/", views.rules, name="rules"),
]
