"""`mseval servers list [NAME ...]`: a summary per server, or one line per tool of the named ones."""

from __future__ import annotations

from tests.harness.cli_support import mseval, one_line_error


def test_servers_list_with_a_name_prints_each_tool_with_mode_and_label() -> None:
    result = mseval("servers", "list", "lms")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.strip().splitlines()]
    assert all(len(row) == 3 and row[0].startswith("mcp__lms__") for row in rows), rows
    assert ["mcp__lms__set_grade", "write", "record-update"] in rows
    assert ["mcp__lms__list_courses", "read", "course-records-lookup"] in rows


def test_servers_list_without_names_keeps_the_summary() -> None:
    result = mseval("servers", "list")
    assert result.returncode == 0 and any(
        line.startswith("lms ") and "tools (" in line for line in result.stdout.splitlines()
    )


def test_servers_list_names_an_unknown_server() -> None:
    assert one_line_error(mseval("servers", "list", "nosuch")).startswith(
        "nosuch: unknown MCP server; known: calendar"
    )


def test_help_shows_readable_placeholders() -> None:
    result = mseval("run", "--help")
    assert (
        "<list[" not in result.stdout
        and "--model M" in result.stdout
        and "--budget KEY=VALUE" in result.stdout
    )


def test_every_qualified_tool_name_is_one_providers_accept() -> None:
    """OpenAI takes function names of at most 64 characters from [a-zA-Z0-9_-] (Anthropic the
    same): a longer `mcp__server__tool` would make every call of every episode a 400."""
    import re

    from harness.servers_catalog import tool_catalog

    names = [t.spec.name for t in tool_catalog()]
    assert len(names) > 100
    assert [n for n in names if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n)] == []
