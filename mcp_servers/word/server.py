"""The `word` server: build and read docx documents in the workspace (python-docx).

Writes to one document are serialised by a per-file lock: load, change, save is not atomic,
and concurrent sub-agents adding to the same document would otherwise lose each other's work.
A save goes over the file at once, and reads take the lock too (`common.files`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import docx
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph
from mcp.server.mcpserver import MCPServer

from mcp_servers.common.files import XML_TEXT_ERROR, Cell, OfficeFiles, cell_text
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer
from mcp_servers.common.values import one_of_any_case

READ = "workspace-inspection"
WRITE = "document-build"
# A document read back in one call stays readable by a model; longer ones are cut with a note.
MAX_BLOCKS = 2000
MAX_TABLE_COLUMNS = 30


def _blocks(document: Any) -> Iterator[dict[str, Any]]:
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            if item.text.strip():
                yield {
                    "type": "paragraph",
                    "style": item.style.name if item.style else None,
                    "text": item.text,
                }
        elif isinstance(item, Table):
            yield {"type": "table", "rows": [[c.text for c in row.cells] for row in item.rows]}


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "word",
        instructions="Word documents (.docx) in the task workspace; paths are relative to it. "
        "Create a document, then add headings, paragraphs, bullet lists and tables in reading order.",
    )
    root = ctx.workspace
    files = OfficeFiles(
        root,
        ".docx",
        "a Word document",
        lambda p: docx.Document(str(p)),
        "reports/Summary.docx",
        (PackageNotFoundError,),
    )
    editing = files.editing

    @reader(app, READ)
    def list_documents() -> str:
        """List the .docx files in the workspace (relative paths, sizes in bytes)."""
        return as_json(files.listing())

    @reader(app, READ)
    def read_document(path: str) -> str:
        """Read a document in order: its title, and blocks that are paragraphs (with their style,
        e.g. 'Heading 1', 'List Bullet', 'Normal') or tables (rows of cell texts)."""
        document = files.read(path)
        blocks = list(_blocks(document))
        out: dict[str, Any] = {
            "path": path,
            "title": document.core_properties.title or None,
            "paragraphs": sum(b["type"] == "paragraph" for b in blocks),
            "tables": sum(b["type"] == "table" for b in blocks),
            "blocks": blocks[:MAX_BLOCKS],
        }
        if len(blocks) > MAX_BLOCKS:
            out["truncated"] = f"showing the first {MAX_BLOCKS} of {len(blocks)} blocks"
        return as_json(out)

    @writer(app, WRITE, destructive=True)
    def create_document(path: str, title: str | None = None, overwrite: bool = False) -> str:
        """Create a new .docx document. With a title, it starts with a 'Title' paragraph and the
        title is set in the document properties. Refuses to replace a file unless overwrite=true."""
        real = files.path(path, False)
        with files.lock(real):
            if real.exists() and not overwrite:
                raise ToolError(f"{path} exists; pass overwrite=true to replace it, or add to it")
            document = docx.Document()
            if title and title.strip():
                try:
                    document.core_properties.title = title.strip()
                    document.add_heading(title.strip(), level=0)
                except ValueError:
                    raise ToolError(XML_TEXT_ERROR) from None
            real.parent.mkdir(parents=True, exist_ok=True)
            files.save(document, real)
        return f"Created {path}" + (f" titled {title.strip()!r}." if title and title.strip() else ".")

    @writer(app, WRITE)
    def add_heading(path: str, text: str, level: int = 1) -> str:
        """Append a heading to the end of a document; level 1 (top) to 9, or 0 for a Title."""
        if not text.strip():
            raise ToolError("heading text must not be empty")
        if not 0 <= level <= 9:
            raise ToolError(f"level must be 0 (Title) to 9; got {level}")
        with editing(path) as document:
            document.add_heading(text, level=level)
        return f"Added heading level {level} to {path}."

    @writer(app, WRITE)
    def add_paragraph(path: str, text: str, style: str | None = None, bold: bool = False) -> str:
        """Append a paragraph of text. style is an optional paragraph style such as 'Quote',
        'Intense Quote', 'Caption' or 'No Spacing' (default 'Normal'); bold makes the text bold."""
        if not text.strip():
            raise ToolError("paragraph text must not be empty")
        with editing(path) as document:
            if style is not None:
                known = {
                    s.name.lower(): s.name
                    for s in document.styles
                    if s.type == WD_STYLE_TYPE.PARAGRAPH and s.name
                }
                style = known[one_of_any_case(style, known.values(), "paragraph style")]
            paragraph = document.add_paragraph(style=style)
            paragraph.add_run(text).bold = bold or None
        return f"Added a paragraph to {path}."

    @writer(app, WRITE)
    def add_bullet_list(path: str, items: list[str], numbered: bool = False) -> str:
        """Append a list, one paragraph per item: bullets ('List Bullet'), or numbered=true for
        '1. 2. 3.' ('List Number')."""
        if not items or any(not i.strip() for i in items):
            raise ToolError("items must be a non-empty list of non-empty strings")
        style = "List Number" if numbered else "List Bullet"
        with editing(path) as document:
            for item in items:
                document.add_paragraph(item, style=style)
        return f"Added a {'numbered' if numbered else 'bulleted'} list of {len(items)} items to {path}."

    @writer(app, WRITE)
    def add_table(path: str, rows: list[list[Cell]], header: bool = True, caption: str | None = None) -> str:
        """Append a table (style 'Table Grid'). rows: a list of rows, each a list of cell values;
        with header=true the first row is the header and is set in bold. Shorter rows are padded.
        An optional caption paragraph is added above the table."""
        if not rows or not any(rows):
            raise ToolError("rows must be a non-empty list of rows, e.g. [['Name', 'Score'], ['Ada', 91]]")
        width = max(len(r) for r in rows)
        if width > MAX_TABLE_COLUMNS:
            raise ToolError(f"at most {MAX_TABLE_COLUMNS} columns; got {width}")
        with editing(path) as document:
            if caption and caption.strip():
                document.add_paragraph(caption.strip(), style="Caption")
            table = document.add_table(rows=len(rows), cols=width)
            table.style = "Table Grid"
            # Row by row: python-docx's table.cell(i, j) lists every cell of the table on each
            # call, which made a 100 x 10 table take 20 s and a 200 x 10 one 94 s.
            for i, (row, values) in enumerate(zip(table.rows, rows, strict=True)):
                for j, cell in enumerate(row.cells):
                    cell.text = cell_text(values[j] if j < len(values) else None)
                    if header and i == 0:
                        for run in cell.paragraphs[0].runs:
                            run.bold = True
        return f"Added a {len(rows)}x{width} table to {path}."

    return app


SPEC = ServerSpec(name="word", description="docx documents in the workspace (python-docx)", build=build)
