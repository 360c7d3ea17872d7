from __future__ import annotations

import re

from sqlmodel import Session, col, select

from mcp_servers.scholar.schema import ScholarPaper
from mcp_servers.web.schema import WebLink, WebPage
from mcp_servers.web.server import CHUNK_CHARS, chunks
from tests.mcp_servers.support import World, as_data, check_contract, serve, text

MAIN_LINE_TIMETABLE = "https://meridianrail.example/timetables/meridian-main-line"


async def test_web_contract(world: World) -> None:
    calls = {
        "search": {"query": "refund railcard", "site": "meridianrail.example"},
        "read_page": {"url": "https://meridianrail.example/fares"},
        "find_in_page": {"url": MAIN_LINE_TIMETABLE, "text": "IC 108"},
        "list_links": {"url": "meridianrail.example/news"},
        "list_sites": {},
    }
    async with serve("web", world) as client:
        await check_contract(client, world, calls)
        tools = (await client.list_tools()).tools
        assert all(t.annotations and t.annotations.read_only_hint for t in tools)


async def test_search_ranks_deterministically(world: World) -> None:
    async with serve("web", world) as client:
        args = {"query": "Friday evening InterCity sold out second class", "limit": 5}
        first = as_data(await client.call_tool("search", args))
        assert first["results"][0]["url"] == "https://meridianrail.example/news/friday-evening-sellouts"
        assert first == as_data(await client.call_tool("search", args))
        scores = [r["score"] for r in first["results"]]
        assert scores == sorted(scores, reverse=True) and len(scores) == 5 and first["total"] >= 5
        digests = as_data(
            await client.call_tool("search", {"query": "speculative decoding", "kind": "paper-summary"})
        )
        assert digests["results"][0]["url"] == "https://paperdigest.example/specstream"
        assert {r["kind"] for r in digests["results"]} == {"paper-summary"}
        none = as_data(await client.call_tool("search", {"query": "zeppelin xylophone"}))
        assert none == {"query": "zeppelin xylophone", "total": 0, "results": []}


async def test_pages_read_in_chunks(world: World) -> None:
    with Session(world.engine) as s:
        page = s.execute(select(WebPage).where(WebPage.url == MAIN_LINE_TIMETABLE)).scalar_one()
        assert s.execute(select(WebPage)).all().__len__() >= 80
    async with serve("web", world) as client:
        first = as_data(
            await client.call_tool(
                "read_page", {"url": "MeridianRail.example/timetables/meridian-main-line/"}
            )
        )
        assert first["chunks"] >= 3 and first["chunk"] == 1
        parts = [first["text"]] + [
            as_data(await client.call_tool("read_page", {"url": MAIN_LINE_TIMETABLE, "chunk": n}))["text"]
            for n in range(2, first["chunks"] + 1)
        ]
        assert "".join(parts) == page.text and all(len(p) <= CHUNK_CHARS for p in parts)
        found = as_data(
            await client.call_tool("find_in_page", {"url": MAIN_LINE_TIMETABLE, "text": "IC 108"})
        )
        assert found["matches"] == 1 and "IC 108" in parts[found["hits"][0]["chunk"] - 1]
        past = await client.call_tool("read_page", {"url": MAIN_LINE_TIMETABLE, "chunk": first["chunks"] + 1})
        assert past.is_error and f"chunks 1..{first['chunks']}" in text(past)


def test_chunks_cut_at_spaces_and_keep_all_text() -> None:
    body = " ".join(f"word{i}" for i in range(1000))
    parts = chunks(body, 100)
    assert "".join(parts) == body and all(len(p) <= 100 for p in parts)
    assert all(p.endswith(" ") for p in parts[:-1])
    assert chunks("") == [""]


async def test_links_are_numbered_and_resolve(world: World) -> None:
    with Session(world.engine) as s:
        urls = set(s.execute(select(WebPage.url)).scalars())
        targets = set(s.execute(select(WebLink.target)).scalars())
    assert targets <= urls | {u + "/" for u in urls}, f"broken links: {targets - urls}"
    async with serve("web", world) as client:
        news = as_data(await client.call_tool("read_page", {"url": "https://meridianrail.example/news"}))
        links = as_data(await client.call_tool("list_links", {"url": "https://meridianrail.example/news"}))[
            "links"
        ]
        assert (
            [int(n) for n in re.findall(r"\[(\d+)\]", news["text"])]
            == [link["n"] for link in links]
            == [1, 2, 3, 4]
        )
        assert all(link["in_corpus"] for link in links)
        target = as_data(await client.call_tool("read_page", {"url": links[1]["url"]}))
        assert "centenary" in target["title"].lower()


async def test_pages_agree_with_the_other_scenarios(world: World) -> None:
    async with serve("web", world) as client:
        digest = as_data(
            await client.call_tool("read_page", {"url": "https://paperdigest.example/delegatebench"})
        )["text"]
        fares = as_data(await client.call_tool("read_page", {"url": "https://meridianrail.example/fares"}))[
            "text"
        ]
    with Session(world.engine) as s:
        paper = s.execute(
            select(ScholarPaper).where(col(ScholarPaper.title).startswith("DelegateBench"))
        ).scalar_one()
    headline = re.search(r"reaches ([\d.]+) ", paper.abstract)
    assert headline and f"it reaches {headline.group(1)} " in digest
    assert "costs 56.08" in fares  # 4.00 + 0.14 x 372 km, the railway's own fare rule


async def test_unknown_pages_are_tool_errors(world: World) -> None:
    async with serve("web", world) as client:
        for tool, args, expected in [
            ("read_page", {"url": "https://www.example.com/"}, "not in the local web corpus"),
            ("read_page", {"url": "file:///etc/passwd"}, "not in the local web corpus"),
            ("list_links", {"url": "http://127.0.0.1:8080/"}, "not in the local web corpus"),
            ("search", {"query": "  "}, "give a search query"),
            ("search", {"query": "rail", "limit": 500}, "limit must be"),
            ("find_in_page", {"url": "https://meridianrail.example/fares", "text": ""}, "give the text"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))


async def test_find_in_page_finds_text_across_a_chunk_boundary(world: World) -> None:
    """Regression: find_in_page searched chunk by chunk, so text cut by a chunk boundary was
    reported as missing."""
    async with serve("web", world) as client:
        first = as_data(await client.call_tool("read_page", {"url": MAIN_LINE_TIMETABLE}))
        tail = first["text"].rstrip()[-12:]
        second = as_data(await client.call_tool("read_page", {"url": MAIN_LINE_TIMETABLE, "chunk": 2}))
        gap = first["text"][len(first["text"].rstrip()) :]
        phrase = tail + gap + second["text"][:12]
        found = as_data(await client.call_tool("find_in_page", {"url": MAIN_LINE_TIMETABLE, "text": phrase}))
        assert found["matches"] >= 1 and 1 in {h["chunk"] for h in found["hits"]}, (phrase, found)
        upper = as_data(
            await client.call_tool("find_in_page", {"url": MAIN_LINE_TIMETABLE, "text": phrase.upper()})
        )
        assert upper["matches"] == found["matches"]


async def test_an_unknown_site_or_kind_is_a_tool_error_not_an_empty_search(world: World) -> None:
    """Regression: a site or kind the corpus lacks (a misspelling, a site given as a URL) answered
    "total": 0, which a model takes for "nothing on the web about it"."""
    async with serve("web", world) as client:
        for args, expected in [
            ({"query": "rail", "kind": "article"}, "unknown kind 'article': use one of blog, company"),
            ({"query": "rail", "site": "https://meridianrail.example"}, "meridianrail.example"),
            ({"query": "rail", "site": "nosuch.example"}, "unknown site 'nosuch.example'"),
        ]:
            result = await client.call_tool("search", args)
            assert result.is_error and expected in text(result), (args, text(result))
        found = as_data(
            await client.call_tool(
                "search", {"query": "rail", "site": "MeridianRail.example", "kind": "News"}
            )
        )
        assert found["total"] > 0 and {(r["site"], r["kind"]) for r in found["results"]} == {
            ("meridianrail.example", "news")
        }
