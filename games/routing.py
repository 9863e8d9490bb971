from django.urls import path

from games import consumers

websocket_urlpatterns: list = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
]
