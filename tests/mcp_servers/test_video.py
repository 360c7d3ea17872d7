from __future__ import annotations

from typing import Any

from mcp import Client

from tests.mcp_servers.support import World, as_data, check_contract, serve, text


async def call(client: Client, tool: str, **args: Any) -> Any:
    return as_data(await client.call_tool(tool, args))


async def error(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} should have failed: {text(result)}"
    return text(result)


async def channel_videos(client: Client, handle: str, **args: Any) -> list[dict[str, Any]]:
    return (await call(client, "search_videos", channel=handle, sort="oldest", page_size=50, **args))["items"]


async def all_threads(client: Client, video_id: str, **args: Any) -> list[dict[str, Any]]:
    first = await call(client, "list_comments", video_id=video_id, page_size=10, **args)
    items = list(first["items"])
    for page in range(2, first["pages"] + 1):
        items += (await call(client, "list_comments", video_id=video_id, page=page, page_size=10, **args))[
            "items"
        ]
    assert len(items) == first["total"]
    return items


async def test_video_contract(world: World) -> None:
    async with serve("video", world) as client:
        cooking = await channel_videos(client, "@cookwithmara")
        first, second = (
            await call(client, "get_playlist", playlist_id=1),
            await call(client, "get_playlist", playlist_id=2),
        )
        in_first = {i["video_id"] for i in first["items"]}
        outside = next(
            v["video_id"] for v in cooking if v["video_id"] not in in_first and v["visibility"] == "public"
        )
        threads = await all_threads(client, cooking[0]["video_id"])
        calls = {
            "list_channels": {},
            "get_channel": {"channel": "cookwithmara"},
            "search_videos": {"query": "curry", "sort": "most_viewed"},
            "get_video": {"video_id": cooking[0]["video_id"]},
            "get_video_stats": {
                "video_id": cooking[0]["video_id"],
                "start_date": "2026-10-01",
                "end_date": "2026-10-31",
            },
            "get_channel_stats": {"channel": "@techunboxed", "start_date": "2026-11-01"},
            "list_comments": {"video_id": cooking[0]["video_id"], "sort": "top"},
            "list_playlists": {"channel": "@cookwithmara"},
            "get_playlist": {"playlist_id": 1},
            "create_playlist": {
                "channel": "@cookwithmara",
                "title": "Soups",
                "video_ids": [cooking[0]["video_id"]],
            },
            "add_to_playlist": {"playlist_id": 1, "video_id": outside, "position": 1},
            "remove_from_playlist": {"playlist_id": 1, "video_id": first["items"][-1]["video_id"]},
            "reorder_playlist": {
                "playlist_id": 2,
                "video_ids": [i["video_id"] for i in reversed(second["items"])],
            },
            "reply_to_comment": {"comment_id": threads[0]["comment_id"], "body": "Thank you!"},
            "hide_comment": {"comment_id": threads[1]["comment_id"], "reason": "off-topic"},
            "update_video": {"video_id": cooking[1]["video_id"], "title": "Sourdough for Absolute Beginners"},
        }
        await check_contract(client, world, calls)
        after = await call(client, "get_playlist", playlist_id=1)
        expected = [outside, *[i["video_id"] for i in first["items"][:-1]]]
        assert [i["video_id"] for i in after["items"]] == expected
        assert [i["position"] for i in after["items"]] == list(range(1, len(expected) + 1))
        reordered = await call(client, "get_playlist", playlist_id=2)
        assert [i["video_id"] for i in reordered["items"]] == calls["reorder_playlist"]["video_ids"]
        assert (await call(client, "get_video", video_id=cooking[1]["video_id"]))["title"].endswith(
            "Absolute Beginners"
        )


async def test_statistics_add_up(world: World) -> None:
    async with serve("video", world) as client:
        videos = await channel_videos(client, "@codecraft")
        assert len(videos) == 12
        channel = await call(client, "get_channel_stats", channel="@codecraft")
        assert channel["start_date"] == "2026-09-01" and channel["end_date"] == "2026-11-19"
        summed = dict.fromkeys(channel["totals"], 0)
        for v in videos:
            stats = await call(client, "get_video_stats", video_id=v["video_id"])
            for day in stats["days"]:
                assert day["date"] >= max("2026-09-01", v["published_at"][:10])
            totals = {k: sum(d[k] for d in stats["days"]) for k in stats["totals"]}
            assert totals == stats["totals"]
            assert v["views"] >= stats["totals"]["views"]
            summed = {k: summed[k] + totals[k] for k in summed}
        assert summed == channel["totals"] and channel["totals"]["views"] > 0
        assert sum(d["views"] for d in channel["days"]) == channel["totals"]["views"]
        top = channel["top_videos"]
        assert [t["views"] for t in top] == sorted((t["views"] for t in top), reverse=True)
        october = await call(
            client,
            "get_video_stats",
            video_id=videos[0]["video_id"],
            start_date="2026-10-01",
            end_date="2026-10-31",
        )
        assert [d["date"] for d in october["days"]] == [f"2026-10-{d:02d}" for d in range(1, 32)]
        ranked = await call(client, "search_videos", channel="@codecraft", sort="most_viewed", page_size=3)
        assert ranked["total"] == 12 and ranked["items"][0]["views"] == max(v["views"] for v in videos)


async def test_comment_threads_and_moderation(world: World) -> None:
    async with serve("video", world) as client:
        video = (await call(client, "search_videos", sort="most_viewed", page_size=1))["items"][0]
        threads = await all_threads(client, video["video_id"])
        visible = len(threads) + sum(len(t["replies"]) for t in threads)
        assert (
            visible
            == video["comments"]
            == (await call(client, "list_comments", video_id=video["video_id"]))["comment_count"]
        )
        everything = await all_threads(client, video["video_id"], include_hidden=True)
        assert len(everything) >= len(threads)
        assert all(t.get("hidden_reason") == "spam" for t in everything if t.get("hidden"))
        thread = next(t for t in threads if t["replies"])
        reply = await client.call_tool(
            "reply_to_comment", {"comment_id": thread["replies"][0]["comment_id"], "body": "Noted!"}
        )
        assert not reply.is_error, text(reply)
        threads = await all_threads(client, video["video_id"])
        again = next(t for t in threads if t["comment_id"] == thread["comment_id"])
        assert again["replies"][-1]["body"] == "Noted!" and again["replies"][-1]["is_channel_owner"]
        n = 1 + len(again["replies"])
        hidden = await client.call_tool(
            "hide_comment", {"comment_id": thread["comment_id"], "reason": "spam"}
        )
        assert f"and {n - 1} repl" in text(hidden)
        assert (await call(client, "get_video", video_id=video["video_id"]))["comments"] == visible + 1 - n
        assert thread["comment_id"] not in {
            t["comment_id"] for t in await all_threads(client, video["video_id"])
        }
        assert "already hidden" in await error(
            client, "hide_comment", comment_id=thread["comment_id"], reason="spam"
        )
        assert "hidden" in await error(client, "reply_to_comment", comment_id=thread["comment_id"], body="hi")


async def test_playlist_rules(world: World) -> None:
    async with serve("video", world) as client:
        mara = await channel_videos(client, "@cookwithmara")
        private = next(v["video_id"] for v in mara if v["visibility"] == "private")
        made = text(
            await client.call_tool(
                "create_playlist",
                {"channel": "@trailtales", "title": "Mixed", "video_ids": [mara[0]["video_id"]]},
            )
        )
        pid = int(made.split()[1])
        assert "another channel" in await error(client, "add_to_playlist", playlist_id=pid, video_id=private)
        assert "already in" in await error(
            client, "add_to_playlist", playlist_id=pid, video_id=mara[0]["video_id"]
        )
        assert "between 1 and 2" in await error(
            client, "add_to_playlist", playlist_id=pid, video_id=mara[1]["video_id"], position=5
        )
        for v in mara[1:4]:
            assert not (
                await client.call_tool(
                    "add_to_playlist", {"playlist_id": pid, "video_id": v["video_id"], "position": 2}
                )
            ).is_error
        order = [i["video_id"] for i in (await call(client, "get_playlist", playlist_id=pid))["items"]]
        assert order == [mara[0]["video_id"], mara[3]["video_id"], mara[2]["video_id"], mara[1]["video_id"]]
        msg = await error(client, "reorder_playlist", playlist_id=pid, video_ids=order[:3])
        assert "missing" in msg and order[3] in msg
        assert "once" in await error(
            client, "reorder_playlist", playlist_id=pid, video_ids=[*order, order[0]]
        )
        assert "is not in" in await error(
            client, "remove_from_playlist", playlist_id=pid, video_id=mara[5]["video_id"]
        )
        playlists = (await call(client, "get_video", video_id=mara[3]["video_id"]))["playlists"]
        assert {"playlist_id": pid, "title": "Mixed"} in playlists
        mine = await call(client, "list_playlists", channel="@trailtales")
        assert [p["videos"] for p in mine if p["playlist_id"] == pid] == [4]


async def test_update_video_metadata(world: World) -> None:
    async with serve("video", world) as client:
        v = (await channel_videos(client, "@fitwithleo"))[0]
        done = await client.call_tool(
            "update_video",
            {
                "video_id": v["video_id"],
                "tags": ["fitness", "staff-pick", "fitness"],
                "visibility": "unlisted",
            },
        )
        assert "tags, visibility" in text(done)
        got = await call(client, "get_video", video_id=v["video_id"])
        assert (
            got["tags"] == ["fitness", "staff-pick"]
            and got["visibility"] == "unlisted"
            and got["updated_at"].startswith("2026-11-20")
        )
        found = await call(client, "search_videos", tag="Staff-Pick")
        assert [i["video_id"] for i in found["items"]] == [v["video_id"]]
        for args, expected in [
            ({}, "at least one"),
            ({"title": "x" * 101}, "1-100"),
            ({"title": "<b>bold</b>"}, "'<'"),
            ({"tags": ["a,b"]}, "commas"),
            ({"visibility": "secret"}, "validation error"),
        ]:
            assert expected in await error(client, "update_video", video_id=v["video_id"], **args), args


async def test_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("video", world) as client:
        for tool, args, expected in [
            ("get_video", {"video_id": "nope"}, "no video"),
            ("get_channel", {"channel": "@nobody"}, "no channel"),
            ("get_playlist", {"playlist_id": 999}, "no playlist"),
            (
                "get_video_stats",
                {"video_id": "nope", "start_date": "2025-01-01", "end_date": "2025-02-01"},
                "2026-09-01",
            ),
            (
                "get_channel_stats",
                {"channel": "@codecraft", "start_date": "2026-10-10", "end_date": "2026-10-01"},
                "before",
            ),
            ("get_channel_stats", {"channel": "@codecraft", "start_date": "Oct 1"}, "YYYY-MM-DD"),
            ("search_videos", {"sort": "random"}, "validation error"),
            ("list_comments", {"video_id": "nope"}, "no video"),
            ("reply_to_comment", {"comment_id": 10**6, "body": "hi"}, "no comment"),
            ("reply_to_comment", {"comment_id": 1, "body": "  "}, "1-10000"),
            ("create_playlist", {"channel": "@codecraft", "title": ""}, "title"),
        ]:
            assert expected in await error(client, tool, **args), (tool, args)


async def test_search_text_is_literal_and_dates_are_checked(world: World) -> None:
    """Regressions: '%' or '_' in a query were LIKE wildcards (matched everything); a start_date
    like 2026-1x-01 or 20261001 passed a shape check and compared as text."""
    async with serve("video", world) as client:
        assert as_data(await client.call_tool("search_videos", {"query": "%"}))["total"] == 0
        assert as_data(await client.call_tool("search_videos", {"query": "_"}))["total"] == 0
        some = as_data(await client.call_tool("search_videos", {"page_size": 1}))["items"][0]
        for tool, args in [
            ("get_video_stats", {"video_id": some["video_id"], "start_date": "2026-1x-01"}),
            ("get_video_stats", {"video_id": some["video_id"], "start_date": "20261001"}),
            ("search_videos", {"published_after": "2026-W40-1"}),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and "YYYY-MM-DD" in text(result), (tool, args, text(result))


async def test_a_tag_is_matched_literally(world: World) -> None:
    """Regression: '%' or '_' in a tag were LIKE wildcards: tag '%' found every video."""
    async with serve("video", world) as client:
        for tag in ("%", "_", "%,%"):
            assert (await call(client, "search_videos", tag=tag))["total"] == 0, tag
        video = (await call(client, "search_videos", page_size=1))["items"][0]
        tag = (await call(client, "get_video", video_id=video["video_id"]))["tags"][0]
        tagged = await call(client, "search_videos", tag=tag.upper(), page_size=50)
        assert 0 < tagged["total"] < (await call(client, "search_videos"))["total"]
        assert video["video_id"] in [v["video_id"] for v in tagged["items"]] or tagged["pages"] > 1
