"""A seat of a game by number or by its player's name, checked (shared by the environments and
the recorder, which must not need Gymnasium)."""

from __future__ import annotations

from typing import Union

import numpy as np


def seat_number(game, seat: Union[int, str]) -> int:
    """`seat` of `game` as a number: a player's name (``"x"``, ``"fox"``) or a number from 0;
    a ValueError names the game's players or seats otherwise."""
    names = game.player_names
    if isinstance(seat, str):
        if seat not in names:
            raise ValueError(f"seat {seat!r}: the players of {game.name} are {', '.join(names)}")
        return names.index(seat)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < len(names):
        raise ValueError(f"seat {seat!r}: the seats of {game.name} are 0 to {len(names) - 1}")
    return int(seat)
