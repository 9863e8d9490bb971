"""Boards and charts as the analysis and puzzle pages draw them, from stored positions."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.engine.cards import RANKS, SUITS
from games.models import Puzzle
from games.nicknames import nickname_shown


def sorted_hand(codes: list[str], trump: str) -> list[str]:
    """By rank with the trumps last, as the table sorts a hand (static/js/cardcodes.js)."""
    return sorted(
        codes, key=lambda code: (code[1] == trump, RANKS.index(code[0]), SUITS.index(code[1]))
    )


def _roles(seat: int, board: dict[str, Any]) -> str:
    if seat in board["out"]:
        return _("out")
    if seat == board["defender"]:
        return _("takes") if board["taking"] else _("defends")
    if seat == board["attacker"]:
        return _("attacks")
    return ""


def _your_role(seat: int, board: dict[str, Any]) -> str:
    if seat == board["defender"]:
        return _("you take") if board["taking"] else _("you defend")
    if seat == board["attacker"]:
        return _("you attack")
    return ""


def analysis_board(board: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """A seat's view of the board: his own hand face up, the others' as counts."""
    me = board["seat"]
    rows = [
        {
            "name": nickname_shown(names[seat]),
            "me": seat == me,
            "cards": sorted_hand(board["hand"], board["trump_suit"]) if seat == me else None,
            "count": size,
            "role": _roles(seat, board),
        }
        for seat, size in enumerate(board["hand_sizes"])
    ]
    rows.sort(key=lambda row: row["me"])  # his own hand at the bottom, as at the table
    return {
        "rows": rows,
        "table": board["table"],
        "trump_card": board["trump_card"],
        "trump_suit": board["trump_suit"],
        "talon_size": board["talon_size"],
    }


def puzzle_board(puzzle: Puzzle) -> dict[str, Any]:
    """An endgame with both hands open: the side to move is «you»."""
    state = puzzle.state
    rows = []
    for seat, hand in enumerate(state["hands"]):
        if seat in state["out"]:
            continue
        rows.append(
            {
                "name": _("You") if seat == puzzle.seat else _("Opponent"),
                "me": seat == puzzle.seat,
                "cards": sorted_hand(hand, state["trump"]),
                "count": len(hand),
                "role": _your_role(seat, state) if seat == puzzle.seat else _roles(seat, state),
            }
        )
    rows.sort(key=lambda row: row["me"])  # the opponent above, as at the table
    return {
        "rows": rows,
        "table": state["table"],
        "trump_card": state["trump_card"],
        "trump_suit": state["trump"],
        "talon_size": 0,
    }


def chance_chart(decisions: list[dict], marked: list[int]) -> dict[str, Any]:
    """Polylines of the chance of being the durak after each decision, as played and at best,
    on a 100-high box (100 % at the top), with the decisions at versions `marked` picked out."""

    def points(key: str) -> str:
        return " ".join(
            f"{index},{(1 - decision[key]) * 100:.1f}" for index, decision in enumerate(decisions)
        )

    return {
        "width": max(len(decisions) - 1, 1),
        "played": points("durak_played"),
        "best": points("durak_best"),
        "marks": [
            index for index, decision in enumerate(decisions) if decision["version"] in marked
        ],
    }
