"""The rate-limit window that the episodes of a run share (one actor for all Ray workers, one
object in a local run): what it books must hold in every minute, with calls queued minutes ahead.

A plain unit test of `Window` (no Ray needed): the rule is the same under both executors.
"""

from __future__ import annotations

import random

import pytest

from harness.models.ratelimit import WINDOW_S, Window


def _overbooked(seed: int) -> str | None:
    """Forty calls at random times against random limits, each booked, most settled at a real
    size below their estimate (as a provider reports): the first 60-s window holding more calls
    than `rpm` or more tokens than `tpm`, described; None when every one holds."""
    draw = random.Random(seed)
    rpm = draw.choice([None, 2, 3, 5])
    tpm = draw.choice([None, 100, 300]) if rpm else draw.choice([100, 300])
    window, now, bookings = Window(rpm, tpm), 0.0, []
    for _ in range(40):
        now += draw.choice([0, 0, 1, 5, 20, 61])
        estimate = draw.randint(1, (tpm or 300) * 9 // 10)  # no call bigger than the budget
        wait, booking = window.reserve(now, estimate)
        assert wait >= 0 and booking[0] == now + wait
        bookings.append(booking)
        if draw.random() < 0.7:
            Window.settle(booking, draw.randint(0, estimate))
    for first, _ in bookings:
        inside = [tokens for start, tokens in bookings if first <= start < first + WINDOW_S]
        if rpm is not None and len(inside) > rpm:
            return f"seed {seed}: {len(inside)} calls from t={first} on, rpm {rpm}"
        if tpm is not None and sum(inside) > tpm:
            return f"seed {seed}: {sum(inside):g} tokens from t={first} on, tpm {tpm}"
    return None


@pytest.mark.parametrize("seeds", [range(0, 150), range(150, 300)])
def test_no_minute_holds_more_than_the_limits(seeds: range) -> None:
    """Once a call was queued two minutes ahead, the window forgot every booking more than two
    minutes before that call (`start - 120 s`), though they were still to come; and a call that
    fitted before queued ones (their settling freed tokens) was appended after them, out of the
    time order the checks assume. Either way a later call was booked into a full minute: 4
    calls in one minute at rpm 3 (seed 5), 118 tokens at tpm 100 (seed 28): 638 of 3000 seeds."""
    assert [found for seed in seeds if (found := _overbooked(seed))] == []
