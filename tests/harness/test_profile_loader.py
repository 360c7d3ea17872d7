"""The profile loader's problems (SPEC §7, §12): each one names its file and its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.profiles import read_profile

HEAD = '---\nname: helper\ndescription: "x"\nwhenToUse: "y"\ntools: ["mcp__lms__*"]\n---'


@pytest.mark.parametrize(
    "text",
    [
        HEAD,  # nothing after the closing '---'
        HEAD + "\n",
        HEAD + "\n\n   \n",  # blank lines only
        "\ufeff" + (HEAD + "\n\n").replace("\n", "\r\n"),  # a byte-order mark and CRLF line ends
    ],
)
def test_empty_principles_are_told_at_the_closing_line_of_the_front_matter(text: str) -> None:
    """Empty principles were the one profile problem told without a line (`helper.md: the
    principles ... are empty`); it is the closing '---', line 6, where they should follow."""
    path = Path("/profiles/helper.md")
    profile, problems = read_profile(path, text)
    assert profile is not None
    assert [(p.file, p.line, p.message) for p in problems] == [
        (str(path), 6, "the principles (the Markdown after the front matter) are empty")
    ]
