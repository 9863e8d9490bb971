from games.routing import websocket_urlpatterns as game_routes
from tournaments.routing import websocket_urlpatterns as tournament_routes

websocket_urlpatterns = [*game_routes, *tournament_routes]
