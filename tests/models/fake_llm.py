"""A scripted model server on 127.0.0.1 speaking a provider's real wire format.

`FakeLLM(dialect, script)` serves one of: the Anthropic Messages API (`anthropic`, POST
/v1/messages), OpenAI Chat Completions (`chat`, POST /v1/chat/completions) or the OpenAI
Responses API (`responses`, POST /v1/responses), from uvicorn in a background thread on a free
port, so the real SDKs talk to it over a real socket. It records every request (headers and
JSON body) for the tests to assert the wire format, and answers each from:
1. the queue of `faults` (an HTTP status with headers and an error body, or a raw body such as
   a 200 cut off mid-way, or a 200 that trickles in a byte at a time), first in first out;
2. otherwise `script(seen)`, a function of a provider-neutral view of the request (`Seen`:
   main agent or sub-agent, how many assistant turns so far, the latest tool results) that
   returns a `Reply` (text, tool calls, usage), encoded in the dialect's response format.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

Dialect = Literal["anthropic", "chat", "responses"]
PATHS = {"anthropic": "/v1/messages", "chat": "/v1/chat/completions", "responses": "/v1/responses"}
STARTUP_LIMIT_S = 20.0  # a bound on waiting for uvicorn to listen, not a timing assumption
# A trickling answer sends a space this often (the client's per-read timeout never fires), and
# gives up after TRICKLE_LIMIT_S, a bound on a broken client, not a timing assumption.
TRICKLE_EVERY_S = 0.01
TRICKLE_LIMIT_S = 20.0


@dataclass(frozen=True)
class WireUsage:
    """Token counts as a provider reports them; `total_input` is what the harness must record."""

    uncached: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int = 0  # the part of cache_write that went to the 1-hour cache
    output: int = 0
    reasoning: int = 0

    @property
    def total_input(self) -> int:
        return self.uncached + self.cache_read + self.cache_write


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()  # (name, arguments or raw text)
    usage: WireUsage = WireUsage()
    thinking: str | None = None  # an Anthropic thinking block / a Responses reasoning item
    # The calls' ids as the server writes them (None: the field left out); default: fresh ones.
    call_ids: tuple[str | None, ...] | None = None
    # Fields as a particular server writes them: `message_fields` go into a Chat Completions
    # answer's message, `body_fields` into the answer's top level (a None value removes the key).
    message_fields: dict[str, Any] = field(default_factory=dict)
    body_fields: dict[str, Any] = field(default_factory=dict)
    # Sent with every non-ASCII character as a `\uXXXX` escape, as some servers write JSON; a
    # lone surrogate in the reply's strings then goes out as the escape `\ud800`.
    escaped: bool = False


def _call_ids(reply: Reply, prefix: str, ids: Callable[[], int]) -> list[dict[str, str]]:
    """For each call, the id field to write (`{key: id}`, or `{}` when it is left out)."""
    given = reply.call_ids if reply.call_ids is not None else [f"{prefix}{ids()}" for _ in reply.calls]
    return [{} if i is None else {"id": i} for i in given]


@dataclass(frozen=True)
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"
    code: str | None = None
    raw: bytes | None = None  # sent as it is instead of an error body (with `content_type`)
    content_type: str = "application/json"
    # A 200 whose body trickles in, a space every TRICKLE_EVERY_S (JSON may start with spaces),
    # until the client hangs up; after TRICKLE_LIMIT_S the scripted answer follows.
    trickle: bool = False


@dataclass(frozen=True)
class Seen:
    """What a request says, whatever the dialect."""

    body: dict[str, Any]
    headers: dict[str, str]
    tools: list[str]
    system: str
    first_user: str
    turn: int  # assistant turns in the history
    tool_results: list[tuple[str, bool]]  # (content, is_error) after the last assistant turn

    @property
    def is_main(self) -> bool:
        return "Agent" in self.tools


Script = Callable[[Seen], Reply]


# -- reading requests ---------------------------------------------------------------------------
def _seen_anthropic(body: dict[str, Any], headers: dict[str, str]) -> Seen:
    msgs = body.get("messages", [])
    first = msgs[0]["content"] if msgs else []
    first_text = (
        first if isinstance(first, str) else next((b["text"] for b in first if b["type"] == "text"), "")
    )
    last = msgs[-1]["content"] if msgs else []
    results = [
        (str(b.get("content", "")), bool(b.get("is_error")))
        for b in (last if isinstance(last, list) else [])
        if b.get("type") == "tool_result"
    ]
    return Seen(
        body, headers, [t["name"] for t in body.get("tools", [])], body.get("system", ""), first_text,
        sum(1 for m in msgs if m["role"] == "assistant"), results,
    )  # fmt: skip


def _seen_chat(body: dict[str, Any], headers: dict[str, str]) -> Seen:
    msgs = body.get("messages", [])
    results: list[tuple[str, bool]] = []
    for m in reversed(msgs):
        if m["role"] != "tool":
            break
        results.insert(0, (m["content"], m["content"].startswith("Error: ")))
    return Seen(
        body, headers, [t["function"]["name"] for t in body.get("tools", [])],
        next((m["content"] for m in msgs if m["role"] == "system"), ""),
        next((m["content"] for m in msgs if m["role"] == "user"), ""),
        sum(1 for m in msgs if m["role"] == "assistant"), results,
    )  # fmt: skip


def _is_assistant_item(item: dict[str, Any]) -> bool:
    return item.get("type") in ("reasoning", "function_call") or item.get("role") == "assistant"


def _seen_responses(body: dict[str, Any], headers: dict[str, str]) -> Seen:
    items = body.get("input", [])
    turns, previous = 0, False
    for item in items:
        now = _is_assistant_item(item)
        turns += now and not previous
        previous = now
    results: list[tuple[str, bool]] = []
    for item in reversed(items):
        if item.get("type") != "function_call_output":
            break
        results.insert(0, (item["output"], item["output"].startswith("Error: ")))
    return Seen(
        body, headers, [t["name"] for t in body.get("tools", [])], body.get("instructions", ""),
        next((i["content"] for i in items if i.get("role") == "user"), ""), turns, results,
    )  # fmt: skip


READERS = {"anthropic": _seen_anthropic, "chat": _seen_chat, "responses": _seen_responses}


# -- writing responses --------------------------------------------------------------------------
def _args_text(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _anthropic(reply: Reply, model: str, ids: Callable[[], int]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.thinking is not None:
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": f"sig-{ids()}"})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for (name, args), ident in zip(reply.calls, _call_ids(reply, "toolu_", ids), strict=True):
        content.append({"type": "tool_use", **ident, "name": name, "input": args})
    u = reply.usage
    return {
        "id": f"msg_{ids()}", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": u.uncached, "cache_read_input_tokens": u.cache_read,
                  "cache_creation_input_tokens": u.cache_write, "output_tokens": u.output,
                  "cache_creation": {"ephemeral_5m_input_tokens": u.cache_write - u.cache_write_1h,
                                     "ephemeral_1h_input_tokens": u.cache_write_1h},
                  "output_tokens_details": {"thinking_tokens": u.reasoning}},
    }  # fmt: skip


def _chat(reply: Reply, model: str, ids: Callable[[], int]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.thinking is not None:  # as DeepSeek, Kimi and vLLM's reasoning parsers send it
        message["reasoning_content"] = reply.thinking
    message.update(reply.message_fields)
    if reply.calls:
        message["tool_calls"] = [
            {**ident, "type": "function", "function": {"name": n, "arguments": _args_text(a)}}
            for (n, a), ident in zip(reply.calls, _call_ids(reply, "call_", ids), strict=True)
        ]
    u = reply.usage
    return {
        "id": f"chatcmpl-{ids()}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.calls else "stop"}],
        "usage": {"prompt_tokens": u.total_input, "completion_tokens": u.output,
                  "total_tokens": u.total_input + u.output,
                  "prompt_tokens_details": {"cached_tokens": u.cache_read},
                  "completion_tokens_details": {"reasoning_tokens": u.reasoning}},
    }  # fmt: skip


def _responses(reply: Reply, model: str, ids: Callable[[], int]) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if reply.thinking is not None:
        output.append(
            {"type": "reasoning", "id": f"rs_{ids()}", "summary": [], "encrypted_content": reply.thinking}
        )
    if reply.text:
        output.append({
            "type": "message", "id": f"msg_{ids()}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        })  # fmt: skip
    for (name, args), ident in zip(reply.calls, _call_ids(reply, "call_", ids), strict=True):
        call_id = {"call_id": ident["id"]} if ident else {}
        output.append({
            "type": "function_call", "id": f"fc_{ids()}", **call_id, "name": name,
            "arguments": _args_text(args), "status": "completed",
        })  # fmt: skip
    u = reply.usage
    return {
        "id": f"resp_{ids()}", "object": "response", "created_at": 0, "status": "completed", "model": model,
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": u.total_input, "input_tokens_details": {"cached_tokens": u.cache_read},
                  "output_tokens": u.output, "output_tokens_details": {"reasoning_tokens": u.reasoning},
                  "total_tokens": u.total_input + u.output},
    }  # fmt: skip


WRITERS = {"anthropic": _anthropic, "chat": _chat, "responses": _responses}


def _answer(dialect: Dialect, reply: Reply, model: str, ids: Callable[[], int]) -> dict[str, Any]:
    body = WRITERS[dialect](reply, model, ids)
    body.update(reply.body_fields)
    return {k: v for k, v in body.items() if not (v is None and k in reply.body_fields)}


def _error_body(dialect: Dialect, fault: Fault) -> dict[str, Any]:
    if dialect == "anthropic":
        return {"type": "error", "error": {"type": fault.code or "api_error", "message": fault.message}}
    return {"error": {"message": fault.message, "type": "error", "code": fault.code}}


# -- the server ---------------------------------------------------------------------------------
class FakeLLM:
    def __init__(self, dialect: Dialect, script: Script) -> None:
        self.dialect = dialect
        self.script = script
        self.requests: list[Seen] = []
        self.faults: deque[Fault] = deque()
        self.errors: list[str] = []  # script failures, reported by the tests
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL the SDK is given (the OpenAI SDK appends paths to .../v1)."""
        root = f"http://127.0.0.1:{self.port}"
        return root if self.dialect == "anthropic" else f"{root}/v1"

    def fail_next(self, *faults: Fault) -> None:
        self.faults.extend(faults)

    def seen(self, main: bool | None = None) -> list[Seen]:
        return [s for s in self.requests if main is None or s.is_main == main]

    async def _handle(self, request: Request) -> Response:
        body = await request.json()
        if request.url.path != PATHS[self.dialect]:
            return JSONResponse({"error": {"message": f"no route {request.url.path}"}}, status_code=404)
        seen = READERS[self.dialect](body, dict(request.headers))
        with self._lock:
            self.requests.append(seen)
            fault = self.faults.popleft() if self.faults else None
        if fault is not None and fault.trickle:
            return StreamingResponse(
                self._trickle(seen, body.get("model", "")), media_type="application/json"
            )
        if fault is not None and fault.raw is not None:
            return Response(fault.raw, fault.status, fault.headers, media_type=fault.content_type)
        if fault is not None:
            return JSONResponse(
                _error_body(self.dialect, fault), status_code=fault.status, headers=fault.headers
            )
        try:
            reply = self.script(seen)
        except Exception as exc:  # reported to the test instead of vanishing in the server thread
            self.errors.append(repr(exc))
            return JSONResponse({"error": {"message": f"script failed: {exc!r}"}}, status_code=400)
        answer = _answer(self.dialect, reply, body.get("model", ""), lambda: next(self._ids))
        if reply.escaped:  # json.dumps escapes all but ASCII (JSONResponse sends UTF-8)
            return Response(json.dumps(answer), media_type="application/json")
        return JSONResponse(answer)

    async def _trickle(self, seen: Seen, model: str) -> AsyncIterator[bytes]:
        until = time.monotonic() + TRICKLE_LIMIT_S
        while time.monotonic() < until:
            yield b" "
            await asyncio.sleep(TRICKLE_EVERY_S)
        yield json.dumps(_answer(self.dialect, self.script(seen), model, lambda: next(self._ids))).encode()

    def __enter__(self) -> FakeLLM:
        app = Starlette(routes=[Route("/{path:path}", self._handle, methods=["POST"])])
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the fake model server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.should_exit = True
        self._thread.join(timeout=STARTUP_LIMIT_S)
