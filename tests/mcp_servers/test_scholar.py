from __future__ import annotations

from sqlmodel import Session, col, func, select

from mcp_servers.scholar.schema import ScholarCitation, ScholarPage, ScholarPaper, ScholarReadingListItem
from tests.mcp_servers.support import World, as_data, check_contract, serve, text


def _paper_id(world: World, title_start: str) -> int:
    with Session(world.engine) as s:
        p = s.execute(
            select(ScholarPaper).where(col(ScholarPaper.title).startswith(title_start))
        ).scalar_one()
        return p.id or 0


async def test_scholar_contract(world: World) -> None:
    pid = _paper_id(world, "DelegateBench")
    calls = {
        "search_papers": {"query": "delegation", "topic": "multi-agent evaluation", "sort": "citations"},
        "list_topics": {},
        "get_paper": {"paper_id": pid},
        "find_authors": {"query": "Aldermoor"},
        "get_author": {"author": "1"},
        "get_citations": {"paper_id": pid},
        "get_references": {"paper_id": pid},
        "read_paper_page": {"paper_id": pid, "page": 2},
        "list_reading_lists": {},
        "get_reading_list": {"name": "Delegation survey"},
        "create_reading_list": {"name": "RAG reading", "description": "for the RAG review"},
        "add_to_reading_list": {"name": "RAG reading", "paper_id": pid, "note": "baseline"},
        "remove_from_reading_list": {"name": "Delegation survey", "paper_id": 0},
    }
    async with serve("scholar", world) as client:
        first = as_data(await client.call_tool("get_reading_list", {"name": "Delegation survey"}))["papers"][
            0
        ]
        calls["remove_from_reading_list"]["paper_id"] = first["paper_id"]
        await check_contract(client, world, calls)
        rl = as_data(await client.call_tool("get_reading_list", {"name": "rag reading"}))
        assert [(p["paper_id"], p["note"]) for p in rl["papers"]] == [(pid, "baseline")]
        left = as_data(await client.call_tool("get_reading_list", {"name": "Delegation survey"}))["papers"]
        assert first["paper_id"] not in [p["paper_id"] for p in left] and len(left) == 3
    with Session(world.engine) as s:
        assert s.execute(select(func.count()).select_from(ScholarReadingListItem)).scalar_one() == 4


async def test_search_filters_sorts_and_pages(world: World) -> None:
    async with serve("scholar", world) as client:
        by_cites = as_data(await client.call_tool("search_papers", {
            "topic": "efficient inference", "year_from": 2024, "sort": "citations", "page_size": 50}))  # fmt: skip
        items = by_cites["items"]
        assert by_cites["total"] == len(items) > 10
        assert all(p["topic"] == "efficient inference" and p["year"] >= 2024 for p in items)
        assert [p["citations"] for p in items] == sorted((p["citations"] for p in items), reverse=True)
        seen = []
        for page in range(1, 4):
            got = as_data(await client.call_tool("search_papers", {
                "topic": "efficient inference", "year_from": 2024, "sort": "citations", "page": page, "page_size": 7}))  # fmt: skip
            seen += [p["id"] for p in got["items"]]
        assert seen == [p["id"] for p in items][:21]
        top = as_data(await client.call_tool("search_papers", {"query": "speculative decoding draft trees"}))
        assert top["items"][0]["title"].startswith("SpecStream")
        newest = as_data(await client.call_tool("search_papers", {"query": "quantization", "sort": "year"}))[
            "items"
        ]
        assert [p["year"] for p in newest] == sorted((p["year"] for p in newest), reverse=True)
        narrow = as_data(
            await client.call_tool("search_papers", {"query": "quantization cache", "match": "all"})
        )["total"]
        wide = as_data(
            await client.call_tool("search_papers", {"query": "quantization cache", "match": "any"})
        )["total"]
        assert narrow < wide


async def test_citation_graph_is_consistent(world: World) -> None:
    pid = _paper_id(world, "PageRAG")
    with Session(world.engine) as s:
        citing = {
            c.citing_id
            for c in s.execute(select(ScholarCitation).where(ScholarCitation.cited_id == pid)).scalars()
        }
        paper = s.get(ScholarPaper, pid)
        assert paper is not None and paper.citation_count == len(citing) > 0
    async with serve("scholar", world) as client:
        got = as_data(await client.call_tool("get_citations", {"paper_id": pid, "page_size": 50}))
        assert {p["id"] for p in got["items"]} == citing and got["total"] == len(citing)
        assert all(p["year"] >= paper.year for p in got["items"])
        refs = as_data(await client.call_tool("get_references", {"paper_id": pid}))["references"]
        assert refs and all(r["year"] <= paper.year for r in refs)


async def test_full_text_reads_page_by_page(world: World) -> None:
    pid = _paper_id(world, "SpecStream")
    async with serve("scholar", world) as client:
        meta = as_data(await client.call_tool("get_paper", {"paper_id": pid}))
        read = [
            as_data(await client.call_tool("read_paper_page", {"paper_id": pid, "page": n}))
            for n in range(1, meta["pages"] + 1)
        ]
        assert [r["page"] for r in read] == list(range(1, meta["pages"] + 1)) and meta["pages"] >= 5
        assert meta["abstract"] in read[0]["text"]
        full = "\n".join(r["text"] for r in read)
        # The compute budget appears in the full text only, never in the abstract.
        assert "GPUs for" in full and "GPUs" not in meta["abstract"]
        refs = as_data(await client.call_tool("get_references", {"paper_id": pid}))["references"]
        assert all(r["title"] in read[-1]["text"] for r in refs)
        past = await client.call_tool("read_paper_page", {"paper_id": pid, "page": meta["pages"] + 1})
        assert past.is_error and f"pages 1..{meta['pages']}" in text(past)
    with Session(world.engine) as s:
        n = s.execute(select(func.count()).where(ScholarPage.paper_id == pid)).scalar_one()
        assert n == meta["pages"]


async def test_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("scholar", world) as client:
        for tool, args, expected in [
            ("get_paper", {"paper_id": 99999}, "no paper"),
            ("search_papers", {"sort": "hotness"}, "sort must be"),
            ("search_papers", {"page": 0}, "page starts at 1"),
            ("get_author", {"author": "Zzyzx Nobody"}, "no author"),
            ("get_reading_list", {"name": "nope"}, "no reading list"),
            ("create_reading_list", {"name": "Delegation survey"}, "exists already"),
            ("add_to_reading_list", {"name": "Delegation survey", "paper_id": 99999}, "no paper"),
            ("remove_from_reading_list", {"name": "Delegation survey", "paper_id": 1}, "not on"),
            ("read_paper_page", {"paper_id": 1, "page": 0}, "pages 1.."),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))


async def test_accented_words_stay_whole_and_author_search_pages(world: World) -> None:
    """Regressions: 'naïve' was searched as 'na' and 've' (matching most abstracts);
    find_authors stopped at 50 without saying more existed."""
    async with serve("scholar", world) as client:
        naive = as_data(await client.call_tool("search_papers", {"query": "naïve"}))
        assert naive["total"] == 0, naive["total"]  # no paper in the index says naïve
        halves = as_data(await client.call_tool("search_papers", {"query": "na ve"}))
        assert halves["total"] > 0
        everyone = as_data(await client.call_tool("find_authors", {"query": "a", "page_size": 50}))
        assert everyone["total"] > 50 and everyone["pages"] >= 2 and len(everyone["items"]) == 50
        second = as_data(await client.call_tool("find_authors", {"query": "a", "page": 2, "page_size": 50}))
        assert not {a["id"] for a in second["items"]} & {a["id"] for a in everyone["items"]}


async def test_unknown_topic_or_venue_is_a_tool_error_not_no_hits(world: World) -> None:
    """Regression: a misspelt topic or venue filter answered an empty page, as if no paper matched."""
    async with serve("scholar", world) as client:
        for args, listed in [({"topic": "agents"}, "llm agents"), ({"venue": "NIPS"}, "NeurIPS")]:
            result = await client.call_tool("search_papers", args)
            assert result.is_error and listed in text(result), text(result)
        mixed = as_data(await client.call_tool("search_papers", {"venue": "neurips", "topic": "LLM Agents"}))
        assert mixed["total"] > 0 and {p["venue"] for p in mixed["items"]} == {"NeurIPS"}
