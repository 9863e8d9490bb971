"""Commands on live tables (RULES.md §3-§6); reads live in ``games.selectors``.

Every command runs in one short transaction and locks rows in one order (``_locks``): the
table, then its game, then seats; the wallet locks its accounts after that. What leaves the
process waits for the commit (``games.effects``). Commands that callers outside this package
run on their own (a move, a timeout, «Я вернулся») open a durable transaction: they are
never part of a larger one.

- ``tables``: open, join, leave, expire a table; the commission; a tournament's table seated at once
- ``play``: the deal, moves, deadlines and the server's moves when they pass, the game's end
- ``bank``: paying out a finished game's bank in one ledger posting
- ``rematch``: confirm or expire a rematch
- ``away``: presence of sockets, and «Я вернулся»
- ``sweep``: the deadlines that passed, fired for the deadline loop, and the periodic catch-up
  of lost timers
- ``clocks``: when the games' clocks run, outages noted and made up for
- ``practice``: practice tables against bots, the bots' moves, and when a practice game ends
- ``quickplay``: one click to a seat at a table with stakes
- ``rating``: skill ratings from games with stakes
- ``blocks``: staff blocks from tables with stakes
- ``chat``: the table chat, players' mutes, reports and staff mutes
- ``notices``: pushes to players about their tables (their move, a game dealt, a rematch)
- ``analysis``: post-game analysis of a player's decisions, queued and run by a task
- ``puzzles``: puzzles from real endgames, players' tries, the puzzle rating, the daily puzzle
"""

from games.errors import GameError
from games.services.analysis import analysis_request, analysis_run
from games.services.away import (
    presence_connect,
    presence_disconnect,
    presence_heartbeat,
    presence_open,
    seat_back,
)
from games.services.blocks import active_stake_block, block_notice, stake_block_create
from games.services.chat import (
    chat_ban,
    chat_history,
    chat_mute,
    chat_post,
    chat_report,
    chat_reports_dismiss,
)
from games.services.friends import friend_invite, player_block, player_unblock
from games.services.play import game_apply_action, game_timeout
from games.services.practice import bot_play, practice_start
from games.services.puzzles import (
    puzzle_daily,
    puzzle_legal_moves,
    puzzle_next,
    puzzle_rating_of,
    puzzle_try,
    puzzles_find,
    puzzles_find_new,
)
from games.services.quickplay import quick_play
from games.services.rating import rating_rebuild
from games.services.rematch import rematch_confirm, rematch_expire
from games.services.sweep import deadline_next, deadlines_fire, games_sweep
from games.services.tables import (
    table_create,
    table_expire,
    table_join,
    table_leave,
    table_set_commission,
)

__all__ = [
    "GameError",
    "active_stake_block",
    "analysis_request",
    "analysis_run",
    "block_notice",
    "bot_play",
    "chat_ban",
    "chat_history",
    "chat_mute",
    "chat_post",
    "chat_report",
    "deadline_next",
    "deadlines_fire",
    "friend_invite",
    "chat_reports_dismiss",
    "game_apply_action",
    "game_timeout",
    "games_sweep",
    "player_block",
    "player_unblock",
    "practice_start",
    "presence_connect",
    "presence_disconnect",
    "presence_heartbeat",
    "presence_open",
    "puzzle_daily",
    "puzzle_legal_moves",
    "puzzle_next",
    "puzzle_rating_of",
    "puzzle_try",
    "puzzles_find",
    "puzzles_find_new",
    "quick_play",
    "rating_rebuild",
    "rematch_confirm",
    "rematch_expire",
    "seat_back",
    "stake_block_create",
    "table_create",
    "table_expire",
    "table_join",
    "table_leave",
    "table_set_commission",
]
