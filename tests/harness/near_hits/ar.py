"""Near hits of the ar tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

LIGHTWEIGHT = "- Lightweight Sub-Agent Delegation for MCP-Intensive Workflows (EMNLP 2026)"
NEXUS = "- NexusRAG: Calibrated Retrieval Over Long Documents for Long-Document Question Answering (arXiv"

LANDMARKS = (
    ("Cite-then-Generate", 2023, 50, 11),
    ("PageRAG", 2024, 22, 8),
    ("ChartSight", 2024, 23, 8),
    ("QuantLens", 2025, 15, 11),
)

HITS: list[NearHit] = [
    # ar-reading-list-additions: naming a paper that was on the list already claims nothing
    NearHit(
        "ar-reading-list-additions",
        "the mail says the most cited 2026 paper was already on the list",
        replace=(
            (
                LIGHTWEIGHT,
                f"{LIGHTWEIGHT}\\n\\n(SwarmScore: Process Metrics for Concurrent Sub-Agent Systems, the most cited"
                " 2026 paper, was already on the list.)",
            ),
        ),
    ),
    # ar-rag-2026-wiki: markdown emphasis around a title
    NearHit(
        "ar-rag-2026-wiki",
        "bullet titles in bold and italics",
        replace=(
            (
                NEXUS,
                "- **NexusRAG: Calibrated Retrieval Over Long Documents for Long-Document Question Answering** (arXiv",
            ),
            (
                "- DeltaCache: Evidence Compression at Scale (NAACL",
                "- _DeltaCache: Evidence Compression at Scale_ (NAACL",
            ),
        ),
    ),
    # ar-digest-fact-check: a cloud sheet's formula is read as what it computes
    NearHit(
        "ar-digest-fact-check",
        'a verdict written as a formula (=IF(C2=E2, "OK", "Draft error"))',
        replace=(
            (
                '["DelegateBench", "Headline score", 45.6, 45.6, 45.6, "OK"]',
                '["DelegateBench", "Headline score", 45.6, 45.6, 45.6, "=IF(C2=E2, \\"OK\\", \\"Draft error\\")"]',
            ),
        ),
    ),
    # ar-landmark-citations: the numbers may come before the landmark's name
    NearHit(
        "ar-landmark-citations",
        "the mail gives the numbers before each landmark ('50 papers cite Cite-then-Generate (2023), 11 of them"
        " from 2026.')",
        replace=tuple(
            (
                f"- {name} ({year}): cited by {n} papers in the index, {n26} of them from 2026;",
                f"- {n} papers cite {name} ({year}), {n26} of them from 2026;",
            )
            for name, year, n, n26 in LANDMARKS
        ),
    ),
    NearHit(
        "ar-landmark-citations",
        "the Summary ends with a Total row of the right sums",
        replace=(
            (
                'Unit Test Generation"]]}',
                'Unit Test Generation"], ["Total", null, 110, 38, null]]}',
            ),
        ),
    ),
    # ar-digest-fact-check: saying a right figure is right calls nothing wrong
    NearHit(
        "ar-digest-fact-check",
        "the mail adds that DelegateBench's figures have no errors and Patchwise's headline score is not wrong",
        replace=(
            (
                "Everything else checks out.",
                "No errors in DelegateBench's figures: its GPUs (32) and both scores match the paper. Patchwise's"
                " headline score (61.2) isn't wrong either. Everything else checks out.",
            ),
        ),
    ),
]
