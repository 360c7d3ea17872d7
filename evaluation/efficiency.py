"""Communication efficiency in the MASBench form, for answer tasks (SPEC §9, scoring-contracts).

Aggregate form: 1000 × mean F1 / total communication over all samples, absent ones included.
It is not an average of per-sample efficiencies: duplicating every sample halves it. The
per-sample form 1000 × mean F1 / mean communication is given beside it and does not change
when samples are duplicated. Missing answers: `filter` averages F1 over answered samples only
(conditional quality), `zero` counts them as 0 (missing-as-zero); the rule is always printed.

F1 is SQuAD-v1 token F1: lower case, punctuation deleted (so "red-blue" is one token), articles
a/an/the dropped, whitespace split; two empty strings give 0.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

MissingRule = Literal["filter", "zero"]
SCALE = 1000.0
NORMALIZER = "SQuAD-v1: lower case, punctuation deleted, articles a/an/the dropped, whitespace split"

_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD v1 normalisation."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD v1 token F1 of one prediction against one gold answer."""
    predicted, expected = normalize_answer(prediction).split(), normalize_answer(gold).split()
    same = sum((Counter(predicted) & Counter(expected)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(expected)
    return 2 * precision * recall / (precision + recall)


def best_f1(prediction: str, golds: str | Sequence[str]) -> float:
    """Max F1 over the gold answers."""
    options = [golds] if isinstance(golds, str) else list(golds)
    return max((token_f1(prediction, g) for g in options), default=0.0)


@dataclass(frozen=True)
class Sample:
    prediction: str | None
    """None when the answer is missing (absent sample)."""
    gold: str | Sequence[str]
    communication: float
    """Tokens counted as communication for this sample (the caller states which)."""


@dataclass(frozen=True)
class Efficiency:
    aggregate: float | None
    per_sample: float | None
    mean_f1: float | None
    total_communication: float
    samples: int
    answered: int
    missing: MissingRule

    def describe(self) -> str:
        """One line that always names the missing-answer rule and both denominators."""
        return (
            f"efficiency {_fmt(self.aggregate)} (1000 × mean F1 / total communication), per-sample "
            f"{_fmt(self.per_sample)} (1000 × mean F1 / mean communication); missing answers: "
            f"{self.missing}; {self.answered}/{self.samples} answered; mean F1 {_fmt(self.mean_f1)}"
        )


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4g}"


def communication_efficiency(samples: Sequence[Sample], missing: MissingRule = "zero") -> Efficiency:
    """Both forms of communication efficiency under one missing-answer rule."""
    scores = [None if s.prediction is None else best_f1(s.prediction, s.gold) for s in samples]
    answered = [f for f in scores if f is not None]
    if missing == "filter":
        mean = math.fsum(answered) / len(answered) if answered else None
    else:
        mean = math.fsum(f or 0.0 for f in scores) / len(scores) if scores else None
    total = float(sum(s.communication for s in samples))
    aggregate = SCALE * mean / total if mean is not None and total > 0 else None
    per_sample = SCALE * mean / (total / len(samples)) if mean is not None and total > 0 else None
    return Efficiency(aggregate, per_sample, mean, total, len(samples), len(answered), missing)
