from django.urls import path

from tournaments import consumers

websocket_urlpatterns: list = [
    path("ws/tournament/<int:tournament_id>/", consumers.TournamentConsumer.as_asgi()),
]
