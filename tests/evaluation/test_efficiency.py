"""MASBench communication efficiency and SQuAD-v1 token F1: the regression table of SPEC §9."""

from __future__ import annotations

import pytest

from evaluation.efficiency import Sample, communication_efficiency, normalize_answer, token_f1

PERFECT = Sample("Paris", "Paris", 100)
ZERO = Sample("London", "Paris", 100)
ABSENT = Sample(None, "Paris", 100)


@pytest.mark.parametrize(
    ("samples", "missing", "aggregate", "per_sample"),
    [
        # 1000 × 1 / 100 = 10
        ([PERFECT], "zero", 10.0, 10.0),
        # mean F1 0.5, total 200: 1000 × 0.5 / 200 = 2.5; per-sample 1000 × 0.5 / 100 = 5
        ([PERFECT, ZERO], "zero", 2.5, 5.0),
        # the same pair twice: total 400 → 1.25, while the per-sample form stays 5
        ([PERFECT, ZERO, PERFECT, ZERO], "zero", 1.25, 5.0),
        # perfect + absent, filter: mean over answered = 1, total 200 → 5
        ([PERFECT, ABSENT], "filter", 5.0, 10.0),
        # perfect + absent, zero: mean 0.5, total 200 → 2.5
        ([PERFECT, ABSENT], "zero", 2.5, 5.0),
    ],
)
def test_masbench_regression_table(
    samples: list[Sample], missing: str, aggregate: float, per_sample: float
) -> None:
    result = communication_efficiency(samples, missing)  # type: ignore[arg-type]
    assert result.aggregate == pytest.approx(aggregate)
    assert result.per_sample == pytest.approx(per_sample)
    assert missing in result.describe()


def test_nothing_answered_or_no_communication_is_undefined() -> None:
    assert communication_efficiency([ABSENT], "filter").aggregate is None
    assert communication_efficiency([ABSENT], "zero").aggregate == 0.0
    assert communication_efficiency([Sample("a", "a", 0)], "zero").aggregate is None
    assert communication_efficiency([], "zero").aggregate is None


def test_squad_token_f1() -> None:
    """Punctuation is deleted, so 'red-blue' is one token ('redblue') against 'red', 'blue': 0.
    Articles are dropped: 'the cat' = 'cat'. Two empty strings: 0.
    'the big red cat' vs 'a red cat sat': tokens {big, red, cat} vs {red, cat, sat};
    2 common, P = R = 2/3, F1 = 2/3."""
    assert token_f1("red-blue", "red blue") == 0.0
    assert token_f1("the cat", "cat") == 1.0
    assert token_f1("", "") == 0.0
    assert token_f1("the big red cat", "a red cat sat") == pytest.approx(2 / 3)
    assert normalize_answer("  The Answer, IS: 5! ") == "answer is 5"


def test_best_of_several_gold_answers() -> None:
    result = communication_efficiency([Sample("cat", ["dog", "the cat"], 50)], "zero")
    assert result.mean_f1 == 1.0
