from django.urls import path

from games import views

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("tables/new/", views.table_create, name="table_create"),
    path("play/", views.quick_play, name="quick_play"),
    path("practice/", views.practice_start, name="practice_start"),
    path("table/<int:table_id>/hint/", views.practice_hint, name="practice_hint"),
    path("table/<int:table_id>/", views.table_detail, name="table_detail"),
    path("table/<int:table_id>/join/", views.table_join, name="table_join"),
    path("table/<int:table_id>/leave/", views.table_leave, name="table_leave"),
    path("game/<int:game_id>/", views.game_detail, name="game_detail"),
    path("game/<int:game_id>/rematch/", views.game_rematch, name="game_rematch"),
    path("game/<int:game_id>/analysis/", views.game_analysis, name="game_analysis"),
    path(
        "game/<int:game_id>/analysis.json",
        views.game_analysis_progress,
        name="game_analysis_progress",
    ),
    path("puzzles/", views.puzzle_next, name="puzzles"),
    path("puzzles/<int:puzzle_id>/", views.puzzle_detail, name="puzzle_detail"),
    path("profile/", views.profile, name="profile"),
    path("players/<str:nickname>/", views.profile, name="profile"),
    path("players/<str:nickname>/card.json", views.player_card, name="player_card"),
    path("players/<str:nickname>/block/", views.player_block, name="player_block"),
    path("players/<str:nickname>/unblock/", views.player_unblock, name="player_unblock"),
    path("players/<str:nickname>/note/", views.player_note, name="player_note"),
    path("friends/", views.friends, name="friends"),
    path("friends/request/", views.friend_request, name="friend_request"),
    path("friends/invite/", views.friend_invite, name="friend_invite"),
    path("friends/<int:friendship_id>/accept/", views.friend_accept, name="friend_accept"),
    path("friends/<int:friendship_id>/end/", views.friendship_end, name="friendship_end"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("watch/", views.watch_tables, name="watch"),
    path("rules/", views.rules, name="rules"),
    path("balance.json", views.balance, name="balance_json"),
]
