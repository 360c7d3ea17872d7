"""Markdown to wiki blocks and back: the subset a model writes (headings, paragraphs, bullet,
numbered and to-do lists, quotes, code fences, dividers)."""

from __future__ import annotations

import re
from dataclasses import dataclass

BLOCK_TYPES = (
    "paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item", "numbered_list_item",
    "to_do", "quote", "code", "divider",
)  # fmt: skip
_NUMBERED = re.compile(r"^\d+[.)]\s+(.*)$")
_TODO = re.compile(r"^[-*]\s+\[( |x|X)\]\s+(.*)$")


@dataclass(frozen=True)
class Block:
    type: str
    text: str = ""
    checked: bool | None = None


def parse(markdown: str) -> list[Block]:
    """Blocks of `markdown`, in order; consecutive plain lines form one paragraph."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    lines = markdown.replace("\r\n", "\n").split("\n")

    def flush() -> None:
        if paragraph:
            blocks.append(Block("paragraph", "\n".join(paragraph)))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        stripped = line.strip()
        i += 1
        if stripped.startswith("```"):
            flush()
            code: list[str] = []
            while i < len(lines) and not lines[i].strip().startswith("```"):
                code.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end)
            blocks.append(Block("code", "\n".join(code)))
            continue
        block = _line_block(stripped)
        if block is None:
            if stripped:
                paragraph.append(stripped)
            else:
                flush()
            continue
        flush()
        blocks.append(block)
    flush()
    return blocks


def _line_block(line: str) -> Block | None:
    if line in ("---", "***", "___"):
        return Block("divider")
    for level in (3, 2, 1):
        if line.startswith("#" * level + " "):
            return Block(f"heading_{level}", line[level + 1 :].strip())
    if line.startswith("#### "):
        return Block("heading_3", line.lstrip("#").strip())
    todo = _TODO.match(line)
    if todo:
        return Block("to_do", todo.group(2).strip(), checked=todo.group(1).lower() == "x")
    if line.startswith(("- ", "* ", "+ ")):
        return Block("bulleted_list_item", line[2:].strip())
    numbered = _NUMBERED.match(line)
    if numbered:
        return Block("numbered_list_item", numbered.group(1).strip())
    if line.startswith(">"):
        return Block("quote", line[1:].strip())
    return None


def render(blocks: list[Block]) -> str:
    """Markdown of `blocks`; `parse(render(b)) == b` for blocks that `parse` makes."""
    out: list[str] = []
    number = 0
    previous = ""
    for b in blocks:
        number = number + 1 if b.type == "numbered_list_item" else 0
        tight = b.type == previous and b.type in (
            "bulleted_list_item",
            "numbered_list_item",
            "to_do",
            "quote",
        )
        if out and not tight:
            out.append("")
        if b.type == "paragraph":
            out.append(b.text)
        elif b.type.startswith("heading_"):
            out.append("#" * int(b.type[-1]) + " " + b.text)
        elif b.type == "bulleted_list_item":
            out.append("- " + b.text)
        elif b.type == "numbered_list_item":
            out.append(f"{number}. {b.text}")
        elif b.type == "to_do":
            out.append(f"- [{'x' if b.checked else ' '}] {b.text}")
        elif b.type == "quote":
            out.append("> " + b.text)
        elif b.type == "code":
            out.append(f"```\n{b.text}\n```")
        elif b.type == "divider":
            out.append("---")
        previous = b.type
    return "\n".join(out)
