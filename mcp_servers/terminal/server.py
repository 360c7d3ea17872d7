"""The `terminal` server: a mock terminal confined to the workspace, with no shell underneath.

Read-only commands (ls, cat, head, tail, grep, wc, find) and writing ones (mkdir, cp, mv, rm,
write_file) are separate tools, so `readOnlyHint` is exact per tool, each implemented in Python
over the workspace with the flags that matter. Every path stays inside the workspace, symlinks
included; `rm` never removes the workspace itself. Output is plain text, as a terminal prints it.
"""

from __future__ import annotations

import fnmatch
import os
import stat
import time
from collections.abc import Generator, Iterator
from contextlib import closing, contextmanager, nullcontext
from typing import Literal

from mcp.server.mcpserver import MCPServer

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, reader, writer
from mcp_servers.common.workspace import Found, Item, create_file, locate, replace_file, short, walk
from mcp_servers.terminal.files import (
    clip,
    copy_file,
    copy_tree,
    head_lines,
    kind,
    long_line,
    os_errors,
    read_sized,
    read_text,
    remove_tree,
    tail_lines,
)
from mcp_servers.terminal.patterns import compile_pattern

READ = "workspace-inspection"
WRITE = "file-build"
MAX_MATCHES = 500
# A grep's whole search may take this long. Patterns are the model's: with `re`, `(a+)+$` on a
# line of 40 a's backtracks for hours while holding the interpreter, which would stall every
# agent in the process. `regex` matches without holding it and stops at a timeout.
GREP_TIMEOUT_S = 2.0
MAX_FOUND = 2000


def too_slow(pattern: str) -> ToolError:
    return ToolError(
        f"the search for {pattern[:60]!r} took longer than {GREP_TIMEOUT_S:g} s and was stopped; "
        "simplify the pattern (nested repetition such as (a|aa)+ backtracks), narrow the path, "
        "or use fixed_strings=true"
    )


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "terminal",
        instructions="A terminal in the task workspace (the current folder '.'): ls, cat, head, tail, grep, "
        "wc, find, mkdir, cp, mv, rm, write_file. Paths are relative to the workspace; there is no shell.",
    )
    root = ctx.workspace  # `locate` walks from its real path; links may name either

    @contextmanager
    def at(path: str, *, follow: bool = True, must_exist: bool = True) -> Iterator[Found]:
        """Where `path` leads (symlinks inside followed), open; missing is a ToolError if must_exist."""
        try:
            found = locate(root, path, follow=follow)
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"{short(path)}: no such file or directory") from None
        except OSError as exc:  # e.g. a folder removed while walked
            raise ToolError(f"{short(path)}: {exc.strerror or exc}") from None
        with found:
            if must_exist and found.lstat() is None:
                raise ToolError(f"{short(path)}: no such file or directory")
            yield found

    def status(found: Found, path: str) -> os.stat_result:
        """The entry's own status; gone since it was found is a ToolError."""
        st = found.lstat()
        if st is None:
            raise ToolError(f"{short(path)}: no such file or directory")
        return st

    def is_dir(found: Found) -> bool:
        """Whether the entry is a folder, following a link there only inside the workspace."""
        st = found.lstat()
        if st is not None and stat.S_ISLNK(st.st_mode):
            try:
                with locate(root, found.rel.as_posix()) as target:
                    st = target.lstat()
            except (ToolError, OSError):
                return False
        return st is not None and stat.S_ISDIR(st.st_mode)

    @reader(app, READ)
    def ls(path: str = ".", all: bool = False, long: bool = False) -> str:
        """List a folder (like `ls`; all=true is -a: show dot-files; long=true is -l: mode, size,
        modified time). Folders end with '/'. A file path lists just that file."""
        with at(path) as target:
            st = status(target, path)
            if not stat.S_ISDIR(st.st_mode):
                return long_line(root, st, target.rel, path) if long else path
            with os_errors(path):
                folder = target.open_folder()
            try:
                names = sorted(n for n in os.listdir(folder) if all or not n.startswith("."))
                if not names:
                    return "(empty folder)"
                lines = []
                for name in names:
                    try:
                        child = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    except OSError:
                        continue
                    label = name + ("/" if stat.S_ISDIR(child.st_mode) else "")
                    lines.append(long_line(root, child, target.rel / name, label) if long else label)
            finally:
                os.close(folder)
        return clip("\n".join(lines))

    @reader(app, READ)
    def cat(path: str, number_lines: bool = False) -> str:
        """Print a text file (number_lines=true is -n: prefix each line with its number)."""
        with at(path) as target, os_errors(path):
            text = read_text(target, path)
        if number_lines:
            text = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(text.splitlines(), start=1))
        return clip(text)

    @reader(app, READ)
    def head(path: str, n: int = 10) -> str:
        """The first n lines of a text file (like `head -n N`); works on files of any size."""
        if n < 0:
            raise ToolError("n must be 0 or more")
        with at(path) as target, os_errors(path):
            return clip("\n".join(head_lines(target, path, n)))

    @reader(app, READ)
    def tail(path: str, n: int = 10) -> str:
        """The last n lines of a text file (like `tail -n N`); works on files of any size."""
        if n < 0:
            raise ToolError("n must be 0 or more")
        with at(path) as target, os_errors(path):
            return clip("\n".join(tail_lines(target, path, n)))

    def searched(top: Found) -> Generator[tuple[str, str]]:
        """(shown path, text) of each text file a recursive grep reads: regular files, and links
        to regular files inside the workspace; binaries, huge files and the rest are skipped."""
        with closing(walk(top)) as items:
            yield from _readable(items)

    def _readable(items: Iterator[Item]) -> Iterator[tuple[str, str]]:
        for item in items:
            if not (stat.S_ISREG(item.st.st_mode) or stat.S_ISLNK(item.st.st_mode)):
                continue
            try:
                if stat.S_ISLNK(item.st.st_mode):
                    with locate(root, item.rel.as_posix()) as target:
                        text = read_text(target, item.shown)
                else:
                    with item.found() as found:
                        text = read_text(found, item.shown)
            except (ToolError, OSError):
                continue  # as grep -I skips binaries
            yield item.shown, text

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
        compiled = compile_pattern(pattern, ignore_case=ignore_case, fixed_strings=fixed_strings)
        deadline = time.monotonic() + GREP_TIMEOUT_S
        out: list[str] = []
        with at(path) as top:
            st = status(top, path)
            prefix = stat.S_ISDIR(st.st_mode)
            if prefix and not recursive:
                raise ToolError(f"{short(path)}: is a directory; pass recursive=true to search inside it")
            if prefix:
                files = searched(top)
            else:
                with os_errors(path):
                    one = (path, read_text(top, path))
                files = (found for found in [one])
            # Closed on any way out: a walk left suspended would hold its folders open until
            # the generator is collected.
            with closing(files):
                for shown, text in files:
                    for number, line in enumerate(text.splitlines(), start=1):
                        left = deadline - time.monotonic()
                        try:
                            if left <= 0:
                                raise TimeoutError
                            if not compiled.search(line, timeout=left):
                                continue
                        except TimeoutError:
                            raise too_slow(pattern) from None
                        if files_with_matches:
                            out.append(shown)
                            break
                        head_ = (f"{shown}:" if prefix else "") + (f"{number}:" if line_numbers else "")
                        out.append(head_ + line)
                        if len(out) >= MAX_MATCHES:
                            break
                    if len(out) >= MAX_MATCHES:
                        out.append(
                            f"... [stopped at {MAX_MATCHES} matching lines; narrow the pattern or the path]"
                        )
                        break
        return clip("\n".join(out)) if out else "(no matches)"

    @reader(app, READ)
    def wc(path: str) -> str:
        """Count lines, words and bytes of a text file (like `wc`): 'lines words bytes path'."""
        with at(path) as target, os_errors(path):
            text, size = read_sized(target, path)
        return f"{text.count(chr(10))} {len(text.split())} {size} {path}"

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
        with at(path) as top:
            for item in walk(top, maxdepth):
                if name is not None and not fnmatch.fnmatchcase(item.rel.name or ".", name):
                    continue
                if type is not None and kind(item.st) != type:
                    continue
                found.append(item.shown)
                if len(found) >= MAX_FOUND:
                    found.append(f"... [stopped at {MAX_FOUND} results; narrow the path or the name]")
                    break
        return "\n".join(found) if found else "(no matches)"

    @writer(app, WRITE)
    def mkdir(path: str, parents: bool = False) -> str:
        """Create a folder (parents=true is -p: create missing parents, no error if it exists)."""
        try:
            with os_errors(path) if parents else nullcontext():
                target = locate(root, path, make_parents=parents)
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"{short(path)}: the parent folder does not exist; pass parents=true") from None
        except OSError as exc:
            raise ToolError(f"{short(path)}: {exc.strerror or exc}") from None
        with target:
            st = target.lstat()
            if st is not None and not parents:
                raise ToolError(f"{short(path)}: already exists")
            if st is not None and not stat.S_ISDIR(st.st_mode):
                raise ToolError(f"{short(path)}: exists and is not a folder")
            if st is not None:
                return f"Folder {target.shown} already exists; nothing changed."
            with os_errors(path):
                os.mkdir(target.name, dir_fd=target.folder)
            return f"Created folder {target.shown}."

    def destination(source: Found, src_dir: bool, dst: str) -> Found:
        """Where source goes: into dst when dst is a folder, else dst itself (its folder must
        exist), as an open Found the caller closes."""
        try:
            target = locate(root, dst, follow=False)
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"{short(dst)}: no such folder to put it in; mkdir it first") from None
        except OSError as exc:
            raise ToolError(f"{short(dst)}: {exc.strerror or exc}") from None
        st = target.lstat()
        if st is not None and stat.S_ISDIR(st.st_mode):
            with target, os_errors(dst):
                target = target.child(source.rel.name)
        elif dst.replace("\\", "/").endswith("/"):
            target.close()
            raise ToolError(f"{short(dst)}: no such folder to put it in; mkdir it first")
        if is_dir(target) and not src_dir:
            target.close()
            raise ToolError(f"{short(dst)}: cannot overwrite a folder with a file")
        if src_dir and (target.rel == source.rel or target.rel.is_relative_to(source.rel)):
            target.close()
            raise ToolError("cannot put a folder inside itself")
        return target

    @writer(app, WRITE, destructive=True)
    def cp(src: str, dst: str, recursive: bool = False) -> str:
        """Copy a file (or a folder with recursive=true, like `cp -r`) to dst; when dst is a
        folder the copy goes inside it. An existing file at dst is replaced."""
        with at(src) as source:
            st = status(source, src)
            src_dir = stat.S_ISDIR(st.st_mode)
            if src_dir and not recursive:
                raise ToolError(f"{short(src)}: is a directory; pass recursive=true to copy it")
            target = destination(source, src_dir, dst)
            with target:
                tst = target.lstat()
                if tst is not None and stat.S_ISLNK(tst.st_mode):
                    # Like cp, it writes through a link at the destination, but only to a place
                    # inside the workspace: a link there that leads out (dangling or not) is refused.
                    with os_errors(dst):
                        followed = locate(root, target.rel.as_posix())
                    target.close()
                    target = followed
                    tst = target.lstat()
                if tst is not None and stat.S_ISDIR(tst.st_mode):
                    raise ToolError(f"{target.shown}: already exists")
                if tst is not None and (tst.st_dev, tst.st_ino) == (st.st_dev, st.st_ino):
                    raise ToolError(f"{short(src)} and {short(dst)} are the same file")
                skipped: list[str] = []
                with os_errors(dst):
                    if src_dir:
                        folder = source.open_folder()
                        try:
                            skipped = copy_tree(folder, target.folder, target.name)
                        finally:
                            os.close(folder)
                    else:
                        copy_file(source, target, src)
                note = (
                    f" (skipped what is not a file, folder or link: {', '.join(skipped)})" if skipped else ""
                )
                return f"Copied {short(src)} to {target.shown}.{note}"

    @writer(app, WRITE, destructive=True)
    def mv(src: str, dst: str) -> str:
        """Move or rename a file or folder (a symlink moves as the link itself); when dst is a
        folder it goes inside it. An existing file at dst is replaced."""
        with at(src, follow=False, must_exist=False) as source:
            if source.name == ".":
                raise ToolError("cannot move the workspace itself")
            st = source.lstat()
            if st is None:
                raise ToolError(f"{short(src)}: no such file or directory")
            with destination(source, stat.S_ISDIR(st.st_mode), dst) as target:
                if is_dir(target):
                    raise ToolError(f"{target.shown}: already exists")
                with os_errors(dst):
                    os.rename(source.name, target.name, src_dir_fd=source.folder, dst_dir_fd=target.folder)
                return f"Moved {short(src)} to {target.shown}."

    @writer(app, WRITE, destructive=True)
    def rm(path: str, recursive: bool = False) -> str:
        """Remove a file, a symlink (the link, not its target) or, with recursive=true (-r), a
        folder and everything in it. The workspace itself cannot be removed."""
        if path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] in (".", ".."):
            raise ToolError(f"refusing to remove '.' or '..' ({short(path)})")
        with at(path, follow=False, must_exist=False) as target:
            if target.name == ".":
                raise ToolError("refusing to remove the workspace itself")
            st = target.lstat()
            if st is None:
                raise ToolError(f"{short(path)}: no such file or directory")
            if not stat.S_ISDIR(st.st_mode):
                with os_errors(path):
                    os.unlink(target.name, dir_fd=target.folder)
            elif not recursive:
                raise ToolError(
                    f"{short(path)}: is a directory; pass recursive=true to remove it and its contents"
                )
            else:
                with os_errors(path):
                    remove_tree(target.folder, target.name)
        return f"Removed {short(path)}."

    @writer(app, WRITE, destructive=True)
    def write_file(path: str, content: str, append: bool = False) -> str:
        """Write text to a file (replacing it, or at its end with append=true, like `>` / `>>`);
        missing parent folders are created."""
        with os_errors(path):
            target = locate(root, path, make_parents=True)
        with target:
            st = target.lstat()
            if st is not None and stat.S_ISDIR(st.st_mode):
                raise ToolError(f"{short(path)}: is a directory")
            with os_errors(path):  # one write of this server at a time (its write turn)
                if append:
                    with create_file(target, path, append=True) as f:
                        f.write(content.encode("utf-8"))
                else:
                    replace_file(target, path, lambda f: f.write(content.encode("utf-8")))
            return f"{'Appended' if append else 'Wrote'} {len(content.encode())} bytes to {target.shown}."

    return app


SPEC = ServerSpec(
    name="terminal", description="A mock terminal confined to the workspace (no shell)", build=build
)
