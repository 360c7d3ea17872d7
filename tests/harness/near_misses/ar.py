"""Near misses of the ar tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss, gold_call, mails_someone_else, stray_spreadsheet, twice

LC = "ar-landmark-citations"
DF = "ar-digest-fact-check"
DS = "ar-delegation-survey-notes"
QL_198 = (
    '[198, "RelayTune-Pro: Verifiable Code Language Models for Unit Test Generation", 2025, "NeurIPS", 2]'
)
QL_219 = '[219, "Towards Cost-Aware Long-Context Decoding with Sparse Attention", 2025, "ICLR", 2]'

MISSES: list[NearMiss] = [
    # ar-landmark-citations
    NearMiss(
        LC,
        "a citing paper's title is 'TBD'",
        replace=(
            (
                '[127, "PageRAG: Retrieval over Paged Documents for Long-Context Question Answering", 2024',
                '[127, "TBD", 2024',
            ),
        ),
    ),
    NearMiss(
        LC,
        "a citing paper's year is wrong",
        replace=(
            ('Should Hand Off Work", 2025, "NeurIPS", 11]', 'Should Hand Off Work", 1999, "NeurIPS", 11]'),
        ),
    ),
    NearMiss(
        LC,
        "a citing paper's venue is '?'",
        replace=(('Conversational Search", 2024, "ICLR", 8]', 'Conversational Search", 2024, "?", 8]'),),
    ),
    NearMiss(
        LC,
        "a citing paper's citation count is wrong (order still descending)",
        replace=(
            ('Unit Test Generation", 2025, "NeurIPS", 2]', 'Unit Test Generation", 2025, "NeurIPS", 3]'),
        ),
    ),
    NearMiss(
        LC,
        "two papers with equal citations are not in paper-id order",
        replace=((f"{QL_198}, {QL_219}", f"{QL_219}, {QL_198}"),),
    ),
    NearMiss(
        LC,
        "the mail to Emeka gives no headline numbers",
        replace=(
            ("cited by 50 papers in the index, 11 of them from 2026", "cited by many papers"),
            ("cited by 22 papers in the index, 8 of them from 2026", "cited by many papers"),
            ("cited by 23 papers in the index, 8 of them from 2026", "cited by many papers"),
            ("cited by 15 papers in the index, 11 of them from 2026", "cited by many papers"),
        ),
    ),
    NearMiss(
        LC,
        "the Summary ends with a Total row of wrong sums (100 citing papers for 110)",
        replace=(
            (
                'Unit Test Generation"]]}',
                'Unit Test Generation"], ["Total", null, 100, 38, null]]}',
            ),
        ),
    ),
    NearMiss(
        DF,
        "the mail also calls two right figures wrong",
        replace=(
            (
                "the paper reports 8\\n\\nEverything",
                "the paper reports 8\\n\\n- DelegateBench, GPUs: wrong, the paper reports 32"
                "\\n- Patchwise, Headline score: wrong, the paper reports 61.2\\n\\nEverything",
            ),
        ),
    ),
    NearMiss(
        DF,
        "the mail's list of wrong figures has a right one too",
        replace=(
            (
                "the paper reports 8\\n",
                "the paper reports 8\\n- Patchwise, Headline score: the draft says 61.2, the paper reports 61.2\\n",
            ),
        ),
    ),
    NearMiss(
        LC,
        "the mail gives PageRAG's citing papers as 12 (true 22)",
        replace=(("cited by 22 papers in the index", "cited by 12 papers in the index"),),
    ),
    # ar-digest-fact-check
    NearMiss(
        DF,
        "the mail gives QuantLens' GPUs as 6 (the paper reports 8; '8' is also inside '1.8')",
        replace=(("the paper reports 8", "the paper reports 6"),),
    ),
    NearMiss(
        DF,
        "the mail names the papers and values but no claims",
        replace=(
            ("SwarmScore, Second score: the draft says", "SwarmScore: the draft says"),
            ("ToolWeaver, Ablation drop: the draft says", "ToolWeaver: the draft says"),
            ("QuantLens, GPUs: the draft says", "QuantLens: the draft says"),
        ),
    ),
    NearMiss(
        DF,
        "the mail names ToolWeaver's wrong figure under the wrong claim",
        replace=(("ToolWeaver, Ablation drop:", "ToolWeaver, GPUs:"),),
    ),
    NearMiss(
        DF,
        "a draft error is marked as a digest error",
        replace=(('65.4, 65.4, "Draft error"', '65.4, 65.4, "Digest error"'),),
    ),
    # ar-speaker-brief
    NearMiss(
        "ar-speaker-brief",
        "the paragraph scrambles the roles: 266 papers, 8 citations, h-index 14",
        replace=(
            (
                "She has 14 papers in our scholar index with 266 citations in total, and an h-index of 8.",
                "She has 266 papers in our scholar index with 8 citations in total, and an h-index of 14.",
            ),
        ),
    ),
    NearMiss(
        "ar-speaker-brief",
        "the paragraph gives 41 papers (true 14)",
        replace=(("She has 14 papers", "She has 41 papers"),),
    ),
    # ar-delegation-survey-notes
    NearMiss(
        DS,
        "a paper's Title cell is 'TBD'",
        replace=(('[287, "SwarmScore: Process Metrics for Concurrent Sub-Agent Systems",', '[287, "TBD",'),),
    ),
    NearMiss(DS, "the wiki notes have no heading per paper", replace=(("## ", ""),)),
    NearMiss(
        DS,
        "the wiki sections of two papers swap their methods",
        replace=(
            ("- Method: QuillMem", "- Method: @@"),
            ("- Method: RelayVL", "- Method: QuillMem"),
            ("- Method: @@", "- Method: RelayVL"),
        ),
    ),
    NearMiss(
        DS,
        "a wiki section gives no headline result",
        replace=(
            (
                "- Headline result: 74.5 on DelegationSuite against 72.4 for round-robin debate; 65.4 on OfficeBench-MA\\n",
                "",
            ),
        ),
    ),
    # ar-rag-2026-wiki
    NearMiss(
        "ar-rag-2026-wiki",
        "the most cited paper is listed last",
        replace=(
            (
                "- NexusRAG: Calibrated Retrieval Over Long Documents for Long-Document Question Answering (arXiv, 1 citations)\\n",
                "",
            ),
            (
                "Fact Verification (ACL, 0 citations)",
                "Fact Verification (ACL, 0 citations)\\n- NexusRAG: Calibrated Retrieval Over Long Documents for Long-Document Question Answering (arXiv, 1 citations)",
            ),
        ),
    ),
    NearMiss(
        "ar-rag-2026-wiki",
        "a bullet gives the wrong venue",
        replace=(
            (
                "DeltaCache: Evidence Compression at Scale (NAACL,",
                "DeltaCache: Evidence Compression at Scale (ACL,",
            ),
        ),
    ),
    # ar-reading-list-additions
    NearMiss(
        "ar-reading-list-additions",
        "a third paper is added as well",
        extra=(
            (
                "mcp__scholar__add_to_reading_list",
                {"name": "Delegation survey", "paper_id": 245, "note": "most cited of 2026"},
            ),
        ),
    ),
    NearMiss(
        "ar-reading-list-additions",
        "the mail to Emeka names only one of the two titles",
        replace=(
            ("- Lightweight Sub-Agent Delegation for MCP-Intensive Workflows (EMNLP 2026)", "- and one more"),
        ),
    ),
]

RL = "ar-reading-list-additions"
LIGHTWEIGHT = "- Lightweight Sub-Agent Delegation for MCP-Intensive Workflows (EMNLP 2026)"

MISSES += [
    # Traps: rows a condition of the prompt leaves out, which the seed holds on purpose.
    NearMiss(
        RL,
        "SwarmScore, 2026's most cited on the topic but already on the list, taken as one of the two",
        replace=(
            (
                gold_call(RL, "mcp__scholar__add_to_reading_list", paper_id=256),
                '{"tool": "mcp__scholar__get_reading_list", "arguments": {"name": "Delegation survey"}}',
            ),
            (LIGHTWEIGHT, "- SwarmScore: Process Metrics for Concurrent Sub-Agent Systems (ICLR 2026)"),
        ),
    ),
    NearMiss(
        RL,
        "the topic left out: PivotMem-Lite (LLM agents, the most cited of 2026) added",
        replace=(
            ('"paper_id": 256', '"paper_id": 273'),
            (LIGHTWEIGHT, "- PivotMem-Lite: Agent Planning at Scale (NeurIPS 2026)"),
        ),
    ),
    NearMiss(
        RL,
        "the year left out: DelegateBench (2025) added",
        replace=(
            ('"paper_id": 256', '"paper_id": 175'),
            (
                LIGHTWEIGHT,
                "- DelegateBench: Measuring When Language Agents Should Hand Off Work (NeurIPS 2025)",
            ),
        ),
    ),
    NearMiss(
        "ar-rag-2026-wiki",
        "a 2025 RAG paper (the most cited) listed first",
        replace=(
            (
                "- NexusRAG: Calibrated",
                "- On the Limits of Evidence Compression in Long-Document Question Answering (NeurIPS, 7 citations)"
                "\\n- NexusRAG: Calibrated",
            ),
        ),
    ),
    NearMiss(
        LC,
        "PageRAG's 'Citing Papers 2026' counts its citing papers of every year",
        replace=(
            ('["PageRAG", 2024, 22, 8,', '["PageRAG", 2024, 22, 22,'),
            ("22 papers in the index, 8 of", "22 papers in the index, 22 of"),
        ),
    ),
    NearMiss(
        "ar-speaker-brief",
        "the table of the five most cited papers has a sixth (PageRAG)",
        replace=(
            (
                'Multi-Hop Question Answering", 2022, "arXiv", 32]',
                'Multi-Hop Question Answering", 2022, "arXiv", 32], '
                '["PageRAG: Retrieval over Paged Documents for Long-Context Question Answering", 2024, "ACL", 22]',
            ),
        ),
    ),
    NearMiss(
        DS,
        "a row for a multi-agent-evaluation paper that is not on the reading list (265)",
        replace=(
            (
                '"CollabQA", 73.0, 2, 48, 2.0]',
                '"CollabQA", 73.0, 2, 48, 2.0], [265, "On the Limits of Process Metrics in Delegated Office Work", '
                '"X", "DelegationSuite", 50.0, 45.0, "CollabQA", 40.0, 8, 10, 1.0]',
            ),
        ),
    ),
]

MISSES += [
    # audit F1: only a mail whose attachment is the final file counts
    NearMiss(
        "ar-landmark-citations",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    NearMiss(
        "ar-speaker-brief",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    # audit F5
    NearMiss(
        "ar-reading-list-additions",
        "the mail claims a third, un-added paper too",
        replace=(
            (
                "- Lightweight Sub-Agent Delegation for MCP-Intensive Workflows (EMNLP 2026)\\n",
                "- Lightweight Sub-Agent Delegation for MCP-Intensive Workflows (EMNLP 2026)\\n"
                "- DeltaVL-Lite: Rethinking Process Metrics for Software Team Simulation\\n",
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "ar-rag-2026-wiki",
        "also archives another wiki page",
        extra=(("mcp__wiki__update_page", {"page_id": 5, "archived": True}),),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "ar-landmark-citations",
        "also adds a paper to a reading list",
        extra=(
            (
                "mcp__scholar__add_to_reading_list",
                {"name": "Delegation survey", "paper_id": 245, "note": "later"},
            ),
        ),
    ),
    NearMiss(
        "ar-speaker-brief",
        "also adds a paper to a reading list",
        extra=(
            (
                "mcp__scholar__add_to_reading_list",
                {"name": "Delegation survey", "paper_id": 245, "note": "later"},
            ),
        ),
    ),
    mails_someone_else(
        "ar-landmark-citations", "also mails the list to someone else too", body="See the attached figures."
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "ar-delegation-survey-notes",
        "also archives another wiki page",
        extra=(("mcp__wiki__update_page", {"page_id": 5, "archived": True}),),
    ),
    NearMiss(
        "ar-digest-fact-check",
        "also shares the fact-check sheet with someone else",
        extra=(("mcp__sheets__share", {"spreadsheet_id": 6, "email": "jade.dubois@company.example"}),),
    ),
    mails_someone_else(
        "ar-digest-fact-check", "also mails the findings to someone else", body="The digest has errors."
    ),
    NearMiss(
        "ar-reading-list-additions",
        "also creates a reading list of its own",
        extra=(("mcp__scholar__create_reading_list", {"name": "Candidates", "description": "to sort"}),),
    ),
    mails_someone_else(
        "ar-reading-list-additions",
        "also mails the additions to someone else",
        to="rafael.eriksen@company.example",
        body="Two papers added.",
    ),
]

# duplicates the checks once let through
MISSES += [
    twice("ar-delegation-survey-notes", "mcp__calendar__create_event", "the reading-group event"),
    twice("ar-delegation-survey-notes", "mcp__wiki__create_page", "the reading-notes wiki page"),
    twice("ar-rag-2026-wiki", "mcp__wiki__create_page", "the 'RAG papers of 2026' wiki page"),
]

# a duplicate the check once let through
MISSES += [
    stray_spreadsheet("ar-digest-fact-check", "a second, empty 'Digest fact check' spreadsheet left behind")
]
