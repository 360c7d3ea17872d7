from __future__ import annotations

import pptx

from tests.mcp_servers.support import World, as_data, check_confinement, check_contract, serve, text

DECK = "decks/Review.pptx"


async def test_pptx_contract_and_deck_contents(world: World) -> None:
    async with serve("pptx", world) as client:
        made = await client.call_tool("create_deck", {"path": DECK})
        assert not made.is_error, text(made)
        calls = {
            "list_decks": {},
            "read_deck": {"path": DECK},
            "create_deck": {"path": "Other.pptx"},
            "add_title_slide": {"path": DECK, "title": "Fall Review", "subtitle": "November 2026"},
            "add_bullet_slide": {"path": DECK, "title": "Highlights", "bullets": ["Growth", "  CS101 +12%"]},
            "add_table_slide": {
                "path": DECK,
                "title": "Enrollment",
                "rows": [["Course", "Students"], ["CS101", 41]],
            },
            "add_notes": {"path": DECK, "slide": 1, "notes": "Welcome everyone."},
        }
        await check_contract(client, world, calls)
        again = await client.call_tool("add_notes", {"path": DECK, "slide": 1, "notes": "Thank the team."})
        assert not again.is_error, text(again)

        deck = pptx.Presentation(str(world.workspace / DECK))
        slides = list(deck.slides)
        assert [s.shapes.title.text for s in slides] == ["Fall Review", "Highlights", "Enrollment"]
        assert slides[0].placeholders[1].text == "November 2026"
        bullets = slides[1].placeholders[1].text_frame.paragraphs
        assert [(p.text, p.level) for p in bullets] == [("Growth", 0), ("CS101 +12%", 1)]
        [table] = [s.table for s in slides[2].shapes if s.has_table]
        assert [[c.text for c in r.cells] for r in table.rows] == [["Course", "Students"], ["CS101", "41"]]
        assert slides[0].notes_slide.notes_text_frame.text == "Welcome everyone.\nThank the team."

        read = as_data(await client.call_tool("read_deck", {"path": DECK}))
        assert read["slides"] == 3
        first, second, third = read["content"]
        assert (first["title"], first["texts"], first["layout"]) == (
            "Fall Review",
            ["November 2026"],
            "Title Slide",
        )
        assert second["texts"] == ["Growth", "CS101 +12%"]
        assert third["tables"] == [[["Course", "Students"], ["CS101", "41"]]]
        assert first["notes"].startswith("Welcome")
        assert [d["path"] for d in as_data(await client.call_tool("list_decks", {}))] == ["Other.pptx", DECK]


async def test_pptx_refuses_paths_outside_the_workspace(world: World) -> None:
    async with serve("pptx", world) as client:
        await check_confinement(client, world, "create_deck", {"path": "x.pptx"})
        await check_confinement(client, world, "read_deck", {"path": "x.pptx"})
        await check_confinement(client, world, "add_title_slide", {"path": "x.pptx", "title": "T"})


async def test_pptx_errors_are_actionable(world: World) -> None:
    (world.workspace / "broken.pptx").write_text("not a zip")
    async with serve("pptx", world) as client:
        assert not (await client.call_tool("create_deck", {"path": "a.pptx"})).is_error
        for tool, args, expected in [
            ("read_deck", {"path": "missing.pptx"}, "no such file"),
            ("read_deck", {"path": "broken.pptx"}, "cannot open"),
            ("create_deck", {"path": "a.docx"}, "not a .pptx"),
            ("create_deck", {"path": "a.pptx"}, "overwrite=true"),
            # Regression: a deck without slides said "between 1 and 0".
            ("add_notes", {"path": "a.pptx", "slide": 1, "notes": "n"}, "a.pptx has no slides yet"),
            ("add_bullet_slide", {"path": "a.pptx", "title": "T", "bullets": []}, "non-empty"),
            ("add_table_slide", {"path": "a.pptx", "title": "T", "rows": [["x"] * 13]}, "at most"),
            ("add_title_slide", {"path": "a.pptx"}, "validation error"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))
        assert len(pptx.Presentation(str(world.workspace / "a.pptx")).slides) == 0
        assert not (await client.call_tool("add_title_slide", {"path": "a.pptx", "title": "T"})).is_error
        for slide, expected in [(2, "between 1 and 1 (the deck has 1 slide)"), (0, "the deck has 1 slide)")]:
            result = await client.call_tool("add_notes", {"path": "a.pptx", "slide": slide, "notes": "n"})
            assert result.is_error and expected in text(result), (slide, text(result))


async def test_title_slide_without_subtitle_has_no_empty_box(world: World) -> None:
    async with serve("pptx", world) as client:
        assert not (await client.call_tool("create_deck", {"path": "t.pptx"})).is_error
        assert not (
            await client.call_tool("add_title_slide", {"path": "t.pptx", "title": "Only a title"})
        ).is_error
        [slide] = as_data(await client.call_tool("read_deck", {"path": "t.pptx"}))["content"]
        assert (slide["title"], slide["texts"]) == ("Only a title", [])
        assert len(pptx.Presentation(str(world.workspace / "t.pptx")).slides[0].placeholders) == 1
