"""The `terminal` server: a mock terminal confined to the workspace, with no shell underneath.

Read-only commands (ls, cat, head, tail, grep, wc, find) and writing ones (mkdir, cp, mv, rm,
write_file) are separate tools, so `readOnlyHint` is exact per tool, each implemented in Python
over the workspace with the flags that matter. Every path stays inside the workspace, symlinks
included; `rm` never removes the workspace itself. Output is plain text, as a terminal prints it.
"""

from __future__ import annotations

import fnmatch
import shutil
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Literal

import regex
from mcp.server.mcpserver import MCPServer

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, reader, writer
from mcp_servers.common.workspace import resolve
from mcp_servers.terminal.files import (
    clip,
    entry,
    head_lines,
    inside,
    long_line,
    os_errors,
    read_text,
    show,
    tail_lines,
    walk,
)

READ = "workspace-inspection"
WRITE = "file-build"
MAX_MATCHES = 500
# A grep's whole search may take this long. Patterns are the model's: with `re`, `(a+)+$` on a
# line of 40 a's backtracks for hours while holding the interpreter, which would stall every
# agent in the process. `regex` matches without holding it and stops at a timeout.
GREP_TIMEOUT_S = 2.0
MAX_FOUND = 2000


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "terminal",
        instructions="A terminal in the task workspace (the current folder '.'): ls, cat, head, tail, grep, "
        "wc, find, mkdir, cp, mv, rm, write_file. Paths are relative to the workspace; there is no shell.",
    )
    root = ctx.workspace.resolve()
    locks: defaultdict[Path, threading.Lock] = defaultdict(threading.Lock)

    def real(path: str, must_exist: bool = True) -> Path:
        found = resolve(root, path)
        if must_exist and not found.exists() and not found.is_symlink():
            raise ToolError(f"{path}: no such file or directory")
        return found

    def shown(p: Path) -> str:
        return show(root, p)

    @reader(app, READ)
    def ls(path: str = ".", all: bool = False, long: bool = False) -> str:
        """List a folder (like `ls`; all=true is -a: show dot-files; long=true is -l: mode, size,
        modified time). Folders end with '/'. A file path lists just that file."""
        target = real(path)
        if not target.is_dir():
            return long_line(root, target, path) if long else path
        names = sorted(c.name for c in target.iterdir() if all or not c.name.startswith("."))
        if not names:
            return "(empty folder)"
        lines = []
        for name in names:
            child = target / name
            label = name + ("/" if child.is_dir() and not child.is_symlink() else "")
            lines.append(long_line(root, child, label) if long else label)
        return clip("\n".join(lines))

    @reader(app, READ)
    def cat(path: str, number_lines: bool = False) -> str:
        """Print a text file (number_lines=true is -n: prefix each line with its number)."""
        text = read_text(real(path), path)
        if number_lines:
            text = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(text.splitlines(), start=1))
        return clip(text)

    @reader(app, READ)
    def head(path: str, n: int = 10) -> str:
        """The first n lines of a text file (like `head -n N`); works on files of any size."""
        if n < 0:
            raise ToolError("n must be 0 or more")
        return clip("\n".join(head_lines(real(path), path, n)))

    @reader(app, READ)
    def tail(path: str, n: int = 10) -> str:
        """The last n lines of a text file (like `tail -n N`); works on files of any size."""
        if n < 0:
            raise ToolError("n must be 0 or more")
        return clip("\n".join(tail_lines(real(path), path, n)))

    @reader(app, READ)
    def grep(
        pattern: str,
        path: str = ".",
        ignore_case: bool = False,
        line_numbers: bool = False,
        recursive: bool = False,
        fixed_strings: bool = False,
        files_with_matches: bool = False,
    ) -> str:
        """Search text files for a regular expression (Python syntax), like `grep`: ignore_case
        (-i), line_numbers (-n), recursive (-r, needed for a folder), fixed_strings (-F: the
        pattern is plain text), files_with_matches (-l: print only file names)."""
        try:
            compiled = regex.compile(
                regex.escape(pattern) if fixed_strings else pattern, regex.IGNORECASE if ignore_case else 0
            )
        except regex.error as exc:
            raise ToolError(
                f"bad pattern {pattern!r}: {exc}; use fixed_strings=true for plain text"
            ) from None
        deadline = time.monotonic() + GREP_TIMEOUT_S
        too_slow = ToolError(
            f"the search for {pattern!r} took longer than {GREP_TIMEOUT_S:g} s and was stopped; "
            "simplify the pattern (nested repetition such as (a|aa)+ backtracks), narrow the path, "
            "or use fixed_strings=true"
        )
        top = real(path)
        if top.is_dir() and not recursive:
            raise ToolError(f"{path}: is a directory; pass recursive=true to search inside it")
        files = (
            [p for p, _ in walk(top) if p.is_file() and inside(root, p.resolve())] if top.is_dir() else [top]
        )
        prefix = top.is_dir()
        out: list[str] = []
        for f in files:
            try:
                text = read_text(f, shown(f))
            except ToolError:
                if not top.is_dir():
                    raise
                continue  # binary or huge files are skipped in a recursive search, as grep -I does
            for number, line in enumerate(text.splitlines(), start=1):
                left = deadline - time.monotonic()
                try:
                    if left <= 0:
                        raise TimeoutError
                    if not compiled.search(line, timeout=left):
                        continue
                except TimeoutError:
                    raise too_slow from None
                if files_with_matches:
                    out.append(shown(f))
                    break
                head_ = (f"{shown(f)}:" if prefix else "") + (f"{number}:" if line_numbers else "")
                out.append(head_ + line)
                if len(out) >= MAX_MATCHES:
                    break
            if len(out) >= MAX_MATCHES:
                out.append(f"... [stopped at {MAX_MATCHES} matching lines; narrow the pattern or the path]")
                break
        return clip("\n".join(out)) if out else "(no matches)"

    @reader(app, READ)
    def wc(path: str) -> str:
        """Count lines, words and bytes of a text file (like `wc`): 'lines words bytes path'."""
        target = real(path)
        text = read_text(target, path)
        return f"{text.count(chr(10))} {len(text.split())} {target.stat().st_size} {path}"

    @reader(app, READ)
    def find(
        path: str = ".",
        name: str | None = None,
        type: Literal["f", "d", "l"] | None = None,
        maxdepth: int | None = None,
    ) -> str:
        """Find files and folders under a path, like `find PATH -name GLOB -type f|d|l -maxdepth N`:
        name matches the last path component with * ? [...] wildcards; one path per line."""
        if maxdepth is not None and maxdepth < 0:
            raise ToolError("maxdepth must be 0 or more")
        found: list[str] = []
        for p, _depth in walk(real(path), maxdepth):
            if name is not None and not fnmatch.fnmatchcase(p.name if p != root else ".", name):
                continue
            kind = "l" if p.is_symlink() else "d" if p.is_dir() else "f"
            if type is not None and kind != type:
                continue
            found.append(shown(p))
            if len(found) >= MAX_FOUND:
                found.append(f"... [stopped at {MAX_FOUND} results; narrow the path or the name]")
                break
        return "\n".join(found) if found else "(no matches)"

    @writer(app, WRITE)
    def mkdir(path: str, parents: bool = False) -> str:
        """Create a folder (parents=true is -p: create missing parents, no error if it exists)."""
        target = real(path, must_exist=False)
        if target.exists() and not parents:
            raise ToolError(f"{path}: already exists")
        if not parents and not target.parent.is_dir():
            raise ToolError(f"{path}: the parent folder does not exist; pass parents=true")
        if target.exists() and not target.is_dir():
            raise ToolError(f"{path}: exists and is not a folder")
        with os_errors(path):
            target.mkdir(parents=parents, exist_ok=parents)
        return f"Created folder {shown(target)}."

    def destination(src: Path, dst: str) -> Path:
        """Where src goes: into dst when dst is a folder, else dst itself (its folder must exist)."""
        target = entry(root, dst)
        if target.is_dir() and not target.is_symlink():
            target = target / src.name
        elif dst.replace("\\", "/").endswith("/"):
            raise ToolError(f"{dst}: no such folder to put it in; mkdir it first")
        if not target.parent.is_dir():
            raise ToolError(f"{dst}: no such folder to put it in; mkdir it first")
        if target.is_dir() and not src.is_dir():
            raise ToolError(f"{dst}: cannot overwrite a folder with a file")
        if src.is_dir() and (target == src or target.is_relative_to(src)):
            raise ToolError("cannot put a folder inside itself")
        return target

    @writer(app, WRITE)
    def cp(src: str, dst: str, recursive: bool = False) -> str:
        """Copy a file (or a folder with recursive=true, like `cp -r`) to dst; when dst is a
        folder the copy goes inside it. An existing file at dst is replaced."""
        source = real(src)
        if source.is_dir() and not recursive:
            raise ToolError(f"{src}: is a directory; pass recursive=true to copy it")
        target = destination(source, dst)
        if target.is_symlink():
            # Like cp, it writes through a link at the destination, but only to a place inside
            # the workspace: a link there that leads out (dangling or not) is refused.
            target = resolve(root, str(target.relative_to(root.resolve())))
        if target.exists() and target.is_dir():
            raise ToolError(f"{shown(target)}: already exists")
        if target.exists() and target.samefile(source):
            raise ToolError(f"{src} and {dst} are the same file")
        with os_errors(dst):
            if source.is_dir():
                shutil.copytree(source, target, symlinks=True)  # links are copied as links, never followed
            else:
                shutil.copy2(source, target)
        return f"Copied {src} to {shown(target)}."

    @writer(app, WRITE, destructive=True)
    def mv(src: str, dst: str) -> str:
        """Move or rename a file or folder (a symlink moves as the link itself); when dst is a
        folder it goes inside it. An existing file at dst is replaced."""
        source = entry(root, src)
        if source == root:
            raise ToolError("cannot move the workspace itself")
        if not source.exists() and not source.is_symlink():
            raise ToolError(f"{src}: no such file or directory")
        target = destination(source, dst)
        if target.exists() and target.is_dir():
            raise ToolError(f"{shown(target)}: already exists")
        with os_errors(dst):
            source.rename(target)
        return f"Moved {src} to {shown(target)}."

    @writer(app, WRITE, destructive=True)
    def rm(path: str, recursive: bool = False) -> str:
        """Remove a file, a symlink (the link, not its target) or, with recursive=true (-r), a
        folder and everything in it. The workspace itself cannot be removed."""
        if path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] in (".", ".."):
            raise ToolError(f"refusing to remove '.' or '..' ({path})")
        target = entry(root, path)
        if target == root:
            raise ToolError("refusing to remove the workspace itself")
        if target.is_symlink() or target.is_file():
            with os_errors(path):
                target.unlink()
        elif target.is_dir():
            if not recursive:
                raise ToolError(f"{path}: is a directory; pass recursive=true to remove it and its contents")
            with os_errors(path):
                shutil.rmtree(target)  # does not follow symlinks inside
        else:
            raise ToolError(f"{path}: no such file or directory")
        return f"Removed {path}."

    @writer(app, WRITE)
    def write_file(path: str, content: str, append: bool = False) -> str:
        """Write text to a file (replacing it, or at its end with append=true, like `>` / `>>`);
        missing parent folders are created."""
        target = real(path, must_exist=False)
        if target.is_dir():
            raise ToolError(f"{path}: is a directory")
        with locks[target], os_errors(path):
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("a" if append else "w", encoding="utf-8") as f:
                f.write(content)
        return f"{'Appended' if append else 'Wrote'} {len(content.encode())} bytes to {shown(target)}."

    return app


SPEC = ServerSpec(
    name="terminal", description="A mock terminal confined to the workspace (no shell)", build=build
)
