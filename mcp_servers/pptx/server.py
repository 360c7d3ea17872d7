"""The `pptx` server: build and read slide decks in the workspace (python-pptx).

Decks use python-pptx's default template at 16:9. Writes to one deck are serialised by a
per-file lock (load, change, save is not atomic), and reads take it too, as in the `excel`
server.
"""

from __future__ import annotations

from typing import Any

import pptx
from mcp.server.mcpserver import MCPServer
from pptx.exc import PackageNotFoundError
from pptx.util import Emu, Inches, Pt

from mcp_servers.common.files import Cell, OfficeFiles, cell_text
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer

READ = "workspace-inspection"
WRITE = "slide-build"
# Layouts of python-pptx's default template (by name, so decks from other templates work too).
TITLE_LAYOUT, CONTENT_LAYOUT, TITLE_ONLY_LAYOUT = "Title Slide", "Title and Content", "Title Only"
MAX_TABLE_ROWS, MAX_TABLE_COLUMNS = 40, 12
MAX_BULLETS = 20


def _add_slide(deck: Any, layout: str) -> Any:
    """A new slide on the layout named `layout`; a ToolError when the deck's template lacks it."""
    found = deck.slide_layouts.get_by_name(layout)
    if found is None:
        names = [lay.name for lay in deck.slide_layouts]
        raise ToolError(
            f"this deck's template has no {layout!r} layout (it has {names}); use a deck made by create_deck"
        )
    return deck.slides.add_slide(found)


def _body(slide: Any) -> Any:
    """The slide's first placeholder that is not its title (subtitle or content), or None."""
    return next((p for p in slide.placeholders if p.placeholder_format.idx != 0), None)


def _slide_view(index: int, slide: Any) -> dict[str, Any]:
    title_shape = slide.shapes.title
    texts: list[str] = []
    tables: list[list[list[str]]] = []
    for shape in slide.shapes:
        if shape.has_text_frame and (title_shape is None or shape.shape_id != title_shape.shape_id):
            texts.extend(p.text for p in shape.text_frame.paragraphs if p.text.strip())
        if shape.has_table:
            tables.append([[c.text for c in row.cells] for row in shape.table.rows])
    notes = slide.notes_slide.notes_text_frame.text if slide.has_notes_slide else ""
    return {
        "slide": index,
        "layout": slide.slide_layout.name,
        "title": title_shape.text if title_shape is not None and title_shape.text else None,
        "texts": texts,
        "tables": tables,
        "notes": notes,
    }


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "pptx",
        instructions="PowerPoint decks (.pptx) in the task workspace; paths are relative to it. "
        "Create a deck, then add slides in order; slides are numbered from 1.",
    )
    root = ctx.workspace
    files = OfficeFiles(
        root,
        ".pptx",
        "a slide deck",
        lambda p: pptx.Presentation(str(p)),
        "decks/Review.pptx",
        (PackageNotFoundError,),
    )
    editing = files.editing

    @reader(app, READ)
    def list_decks() -> str:
        """List the .pptx files in the workspace (relative paths, sizes in bytes)."""
        return as_json(files.listing())

    @reader(app, READ)
    def read_deck(path: str) -> str:
        """Read a deck: per slide its number, layout, title, other texts (bullets, subtitle),
        tables (rows of cell texts) and speaker notes."""
        deck = files.read(path)
        slides = [_slide_view(i, s) for i, s in enumerate(deck.slides, start=1)]
        return as_json({"path": path, "slides": len(slides), "content": slides})

    @writer(app, WRITE, destructive=True)
    def create_deck(path: str, overwrite: bool = False) -> str:
        """Create an empty 16:9 deck. Refuses to replace a file unless overwrite=true."""
        real = files.path(path, False)
        with files.lock(real):
            if real.exists() and not overwrite:
                raise ToolError(f"{path} exists; pass overwrite=true to replace it, or add slides to it")
            deck = pptx.Presentation()
            deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
            real.parent.mkdir(parents=True, exist_ok=True)
            files.save(deck, real)
        return f"Created {path} (no slides yet)."

    @writer(app, WRITE)
    def add_title_slide(path: str, title: str, subtitle: str = "") -> str:
        """Append a title slide (title and optional subtitle)."""
        if not title.strip():
            raise ToolError("title must not be empty")
        with editing(path) as deck:
            slide = _add_slide(deck, TITLE_LAYOUT)
            slide.shapes.title.text = title
            body = _body(slide)
            if subtitle and body is not None:
                body.text = subtitle
            elif body is not None:
                body._element.getparent().remove(body._element)  # no empty "Click to add subtitle" box
            number = len(deck.slides)
        return f"Added title slide {number} to {path}."

    @writer(app, WRITE)
    def add_bullet_slide(path: str, title: str, bullets: list[str]) -> str:
        """Append a slide with a title and bullet points (one string per bullet; indent a bullet
        one level by starting it with two spaces)."""
        if not title.strip():
            raise ToolError("title must not be empty")
        if not bullets or any(not b.strip() for b in bullets):
            raise ToolError("bullets must be a non-empty list of non-empty strings")
        if len(bullets) > MAX_BULLETS:
            raise ToolError(f"at most {MAX_BULLETS} bullets per slide; split them over several slides")
        with editing(path) as deck:
            slide = _add_slide(deck, CONTENT_LAYOUT)
            slide.shapes.title.text = title
            body = _body(slide)
            if body is None:
                raise ToolError("the deck's 'Title and Content' layout has no content box")
            frame = body.text_frame
            for i, bullet in enumerate(bullets):
                paragraph = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
                paragraph.text = bullet.strip()
                paragraph.level = min(4, (len(bullet) - len(bullet.lstrip(" "))) // 2)
            number = len(deck.slides)
        return f"Added bullet slide {number} ({len(bullets)} bullets) to {path}."

    @writer(app, WRITE)
    def add_table_slide(path: str, title: str, rows: list[list[Cell]]) -> str:
        """Append a slide with a title and a table; rows is a list of rows of cell values, the
        first row being the header. Shorter rows are padded."""
        if not title.strip():
            raise ToolError("title must not be empty")
        if not rows or not any(rows):
            raise ToolError(
                "rows must be a non-empty list of rows, e.g. [['Course', 'Students'], ['CS101', 41]]"
            )
        width = max(len(r) for r in rows)
        if len(rows) > MAX_TABLE_ROWS or width > MAX_TABLE_COLUMNS:
            raise ToolError(
                f"a slide table holds at most {MAX_TABLE_ROWS} rows and {MAX_TABLE_COLUMNS} columns; split it"
            )
        with editing(path) as deck:
            slide = _add_slide(deck, TITLE_ONLY_LAYOUT)
            slide.shapes.title.text = title
            left, top = Inches(0.5), Inches(1.5)
            width_emu = Emu(deck.slide_width - 2 * left)
            height = Emu(min(deck.slide_height - top - Inches(0.3), Inches(0.4) * len(rows)))
            table = slide.shapes.add_table(len(rows), width, left, top, width_emu, height).table
            size = Pt(14 if len(rows) <= 12 else 10)
            for i, row in enumerate(rows):
                for j in range(width):
                    cell = table.cell(i, j)
                    cell.text = cell_text(row[j] if j < len(row) else None)
                    for paragraph in cell.text_frame.paragraphs:
                        paragraph.font.size = size
            number = len(deck.slides)
        return f"Added table slide {number} ({len(rows)}x{width}) to {path}."

    @writer(app, WRITE)
    def add_notes(path: str, slide: int, notes: str, replace: bool = False) -> str:
        """Add speaker notes to slide number `slide` (from 1); they are appended to any notes
        already there unless replace=true."""
        if not notes.strip():
            raise ToolError("notes must not be empty")
        with editing(path) as deck:
            count = len(deck.slides)
            if count == 0:
                raise ToolError(f"{path} has no slides yet; add a slide first, then its notes")
            if not 1 <= slide <= count:
                has = "1 slide" if count == 1 else f"{count} slides"
                raise ToolError(f"slide must be between 1 and {count} (the deck has {has})")
            frame = deck.slides[slide - 1].notes_slide.notes_text_frame
            frame.text = notes if replace or not frame.text.strip() else f"{frame.text}\n{notes}"
        return f"Notes set on slide {slide} of {path}."

    return app


SPEC = ServerSpec(name="pptx", description="pptx slide decks in the workspace (python-pptx)", build=build)
