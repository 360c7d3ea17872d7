"""What the HTTP model providers share: API keys, model-name options, extras, error mapping.

No provider SDK is imported here, so this module is cheap; the provider modules map their
SDK's exceptions to `(status, headers, body)` and call `status_error`, so one table decides
which failures the harness retries (SPEC §2) for every provider.
"""

from __future__ import annotations

import email.utils
import ipaddress
import json
import logging
import math
import os
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic_core import to_jsonable_python

from contracts.errors import InputError
from harness.models.base import ErrorKind, ModelAPIError
from harness.models.registry import PROVIDERS, name_options
from harness.models.wire_text import without_lone_surrogates

log = logging.getLogger("harness.models")
T = TypeVar("T")

# A whole model call; long reasoning answers take minutes, so this is generous (the SDKs'
# own default is 10 minutes too). Connecting should be quick: a dead host fails fast.
REQUEST_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 10.0
# The slowest generation a call is given time for: an answer of max_output_tokens at this rate
# may take longer than REQUEST_TIMEOUT_S (64k tokens: 53 min), and a call cut off by the timeout
# is retried from the start and billed again.
SLOWEST_TOKENS_PER_S = 20.0


def request_timeout_s(max_output_tokens: int) -> float:
    """The whole-call timeout for an answer of up to `max_output_tokens`."""
    return max(REQUEST_TIMEOUT_S, max_output_tokens / SLOWEST_TOKENS_PER_S)


ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Phrases that servers use for a prompt beyond the model's context window (Anthropic,
# OpenAI, vLLM, llama.cpp, SGLang, …); such a 400 is not worth retrying.
_OVERFLOW = re.compile(
    r"context[ _-]?(length|window|size|limit)|prompt is too long|too many (input )?tokens|"
    r"maximum context|exceeds? the (model's )?(max(imum)? )?(context|input)|"
    # xAI; Gemini's OpenAI-compatible endpoint; Bedrock gateways; TGI (and Together, on it)
    r"maximum prompt length|input token count .* exceeds|input is too long|"
    r"tokens \+ .?max_new_tokens.? must be",
    re.IGNORECASE,
)
# 429s that no amount of waiting fixes (quota and spend limits), by the error code servers give.
_NOT_TRANSIENT_429 = re.compile(r"quota|spend_limit|billing", re.IGNORECASE)
# 400s that say the account cannot pay (Anthropic sends an empty credit balance and a reached
# spend limit as 400 invalid_request_error, not 402): no fault of the model, no retry helps.
_NO_CREDIT_400 = re.compile(
    r"credit balance is too low|reached your specified API usage limits", re.IGNORECASE
)


def is_overflow(*texts: str) -> bool:
    """Whether an error's message or code says the prompt exceeds the context window."""
    return any(_OVERFLOW.search(t) for t in texts)


def api_key(provider: str, env_name: str | None, default_env: str | None, fallback: str | None = None) -> str:
    """The API key from the environment variable named `env_name` (or `default_env`).

    `fallback` is used when no variable was named and the default is unset (local servers
    such as vLLM or Ollama accept any key). Raises `InputError` naming the variable.
    """
    name = env_name or default_env
    if name is not None and not ENV_NAME.match(name):
        raise InputError.one(
            "--api-key-env", None, f"{name[:6]}…: give the NAME of an environment variable, not a key"
        )
    value = (os.environ.get(name) or "").strip() if name else ""
    if value:
        if any(not " " < c <= "~" for c in value):
            raise InputError.one(
                "--api-key-env", None, f"${name} holds a character no API key has (a line break, a space?)"
            )
        return value
    if fallback is not None and env_name is None:
        return fallback
    raise InputError.one(
        "--api-key-env",
        None,
        f"{provider}: environment variable {_shown_name(name)} is not set; "
        "export it or name another with --api-key-env",
    )


# What API keys look like and variable names do not: a provider's key prefix, or a long run of
# letters and digits with no separating underscore.
_KEY_LIKE = re.compile(r"^(sk|gsk|fw|pk|rk|xai)[-_]|[A-Za-z0-9]{24,}")


def _shown_name(name: str | None) -> str:
    """A variable's name as messages show it: in full, unless it looks like a key given where a
    name belongs (a `gsk_…` or `sk-…` key passes ENV_NAME): then its first 6 characters only."""
    if name is None or not _KEY_LIKE.search(name):
        return str(name)
    return f"{name[:6]}… ({len(name)} characters; give the variable's name, not the key)"


def split_options(model_id: str, allowed: Mapping[str, tuple[str, ...]]) -> tuple[str, dict[str, str]]:
    """`gpt-5?api=responses` -> ("gpt-5", {"api": "responses"}); unknown or repeated options are errors."""
    base, options = name_options(model_id)
    for key, value in options.items():
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise InputError.one("--model", None, f"{model_id}: unknown option {key!r} (known: {known})")
        if value not in allowed[key]:
            raise InputError.one(
                "--model", None, f"{model_id}: option {key} must be one of {', '.join(allowed[key])}"
            )
    return base, options


def request_extras(extra: Mapping[str, Any], provider: str) -> dict[str, Any]:
    """Extra request fields for `provider`: the common ones, then its own section on top.

    `ModelSettings.extra` holds request fields for every provider, except that a key named
    after a provider (`anthropic`, `openai`, `openai-compatible`) holds fields for it alone.
    """
    common = {k: v for k, v in extra.items() if k not in PROVIDERS}
    return merged(common, extra.get(provider) or {})


def merged(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `top`'s fields on top, key by key into nested objects: extras that add
    `reasoning: {summary: auto}` keep the `reasoning.effort` mseval set."""
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            value = merged(below, value)
        out[key] = value
    return out


def distinct_ids(ids: Sequence[object], prefix: str) -> list[str]:
    """The tool-call ids of one answer, made distinct: a missing one is invented (`prefix` and
    random hex), a repeated one gets a suffix `-N` (the agent loop uses this too). Each
    provider writes these ids into the state it replays too, so a replayed call and its result
    always carry the same id."""
    given: set[str] = set()
    present = {str(i) for i in ids if i}
    out: list[str] = []
    for n, raw in enumerate(ids):
        if not raw:
            new = f"{prefix}{uuid.uuid4().hex[:24]}"
        else:
            new = base = str(raw)
            k = n
            while new in given or (new != base and new in present):
                new, k = f"{base}-{k}", k + 1
        given.add(new)
        out.append(new)
    return out


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms`, else `retry-after` (seconds or an HTTP date); None
    (back off instead) when neither gives a positive, finite wait: `retry-after: 0` would
    otherwise spend every retry at once, and `nan` would never end the wait."""
    headers = headers or {}
    for seconds in (_wait(headers.get("retry-after-ms"), 1000.0), _wait(headers.get("retry-after"), 1.0)):
        if seconds is not None and math.isfinite(seconds) and seconds > 0:
            return seconds
    return None


def _wait(value: str | None, per_second: float) -> float | None:
    if value is None:
        return None
    try:
        return float(value) / per_second
    except ValueError:
        pass
    if per_second != 1.0:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return None


def error_text(body: object, fallback: str) -> tuple[str, str]:
    """(message, code) from an error body: `{"error": {"message", "code"|"type"}}` or flat."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            message = inner.get("message") or fallback
            code = inner.get("code") or inner.get("type") or ""
            details = inner.get("details")
            if isinstance(details, Mapping) and details.get("error_code"):
                code = details["error_code"]
            return without_lone_surrogates(str(message)), without_lone_surrogates(str(code))
        if isinstance(inner, str):
            return without_lone_surrogates(inner), ""
    if isinstance(body, str) and body.strip():
        return without_lone_surrogates(body.strip()[:500]), ""
    return fallback, ""


COMPATIBLE = "openai-compatible"
"""The provider of any Chat Completions server at --base-url."""
PROVIDER_ANTHROPIC = "anthropic"


def status_error(
    provider: str,
    status: int,
    headers: Mapping[str, str] | None,
    body: object,
    fallback: str,
    key_env: str | None = None,
    base_url: str | None = None,
) -> ModelAPIError:
    """The `ModelAPIError` for an HTTP error status (which kinds the harness retries: base.py).
    A 404 from a `base_url` the user gave says how the SDK builds the path from it."""
    message, code = error_text(body, fallback)
    kind: ErrorKind
    if status == 429:
        kind = "other" if _NOT_TRANSIENT_429.search(code) else "rate_limit"
    elif status in (401, 403):
        kind = "authentication"
        # Only an OpenAI-compatible model runs without a named key: it then sends a placeholder.
        where = (
            f" (key from ${key_env})"
            if key_env
            else " (no --api-key-env was given: a placeholder key was sent)"
        )
        message = f"{provider} refused the credentials{where}: {message}"
    elif status == 408:
        kind = "timeout"
    elif status == 409 or status >= 500:
        kind = "server_error"
    elif status in (400, 413, 422) and is_overflow(message, code):
        kind = "context_overflow"
    elif status == 402 or (status == 400 and _NO_CREDIT_400.search(message)):
        kind = "other"
    else:
        kind = "bad_request"
        if status == 404 and provider == PROVIDER_ANTHROPIC and base_url:
            message = (
                f"{message} (check --base-url, to which the SDK appends /v1/messages, so it does "
                "not end in /v1, and the model name)"
            )
        elif status == 404 and (provider == COMPATIBLE or base_url):
            message = f"{message} (check --base-url, which usually ends in /v1, and the model name)"
    if code and code not in message:
        message = f"{message} [{code}]"
    return ModelAPIError(
        kind,
        f"HTTP {status}: {message}",
        status=status,
        retry_after_s=retry_after_s(headers) if kind in ("rate_limit", "server_error", "timeout") else None,
    )


def unreadable(name: str, detail: str) -> ModelAPIError:
    """A 200 answer that is not the JSON object the API promises (a body cut off mid-way, a
    proxy's HTML page): a server fault, retried like a 5xx."""
    return ModelAPIError("server_error", f"unreadable answer from {name}: {detail}")


def read_answer(
    parse: Callable[[dict[str, Any]], T], data: dict[str, Any], name: str, items: str | None
) -> T:
    """`parse(data)` for a JSON object that is the API's answer: one whose `items` (the list
    that holds the answer: `content`, `output`; None: the parser checks) is missing, or parts
    of which have the wrong type (a string where an object belongs, a token count that is not
    a number), is a server fault like an unreadable body, retried, not the model's (empty)
    answer or a crash of the harness. A JSON error object sent with 200, as some gateways do,
    names its message."""
    if items is not None and not isinstance(data.get(items), list):
        error = data.get("error")
        if isinstance(error, Mapping) or data.get("type") == "error":
            message, code = error_text(data, "no message")
            raise unreadable(
                name, f"an error object came with 200: {message}" + (f" [{code}]" if code else "")
            )
        raise unreadable(name, f"the answer has no {items} list: {json.dumps(data)[:300]}")
    try:
        return parse(data)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise unreadable(
            name, f"a part of the answer has the wrong shape ({type(exc).__name__}: {exc})"
        ) from exc


def answer_object(result: Any, name: str) -> dict[str, Any]:
    """The JSON object of an SDK's parsed answer. The SDKs hand back a body that is not a JSON
    object as it is (a `str` for a non-JSON content type, a `list` for an array): raises then."""
    if hasattr(result, "model_dump"):
        # Lone surrogates out first (`wire_text`): the SDK model's own JSON dump turns one in a
        # key into three U+FFFD, and leaves those in values as they are.
        values = without_lone_surrogates(result.model_dump(by_alias=True, exclude_none=True, warnings=False))
        data: dict[str, Any] = to_jsonable_python(values)
        return data
    text = result if isinstance(result, str) else json.dumps(result)
    raise unreadable(name, f"the body is not a JSON object: {text.strip()[:200]!r}")


def warn_no_usage(name: str) -> None:
    """Say (once per model and run: the caller keeps the flag) that a server's answers carry no
    `usage`: their tokens count as 0 and their cost is unknown (null)."""
    log.warning(
        "%s: the server's answer has no usage; its calls count 0 tokens and their cost is unknown "
        "(null), so this run's token figures undercount (said once per model)",
        name,
    )


def loopback_host(base_url: str | None) -> str | None:
    """The host of `base_url` when it is this machine (localhost, 127.0.0.0/8, ::1), else None."""
    try:
        host = urlsplit(base_url or "").hostname
    except ValueError:
        return None
    if not host:
        return None
    if host == "localhost" or host.endswith(".localhost"):
        return host
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None


def direct_client(sdk: Any, base_url: str | None) -> Any:
    """An HTTP client for the SDK (its `DefaultAsyncHttpxClient`, with the SDK's defaults) that
    reaches a server on this machine directly; None (the SDK's own client) for any other host.

    The SDKs' clients take proxies from HTTP_PROXY / HTTPS_PROXY / ALL_PROXY and sent requests
    to a local vLLM or Ollama through the proxy too, the API key in their headers, unless
    NO_PROXY named the host: a loopback address is never anything but this machine."""
    host = loopback_host(base_url)
    if host is None:
        return None
    pattern = f"all://[{host}]" if ":" in host else f"all://{host}"
    return sdk.DefaultAsyncHttpxClient(mounts={pattern: None})  # None: no proxy for this host


def cause_text(exc: BaseException) -> str:
    """What an SDK's connection error hides behind its "Connection error.": the innermost
    cause that says something (a refused connection, a name that does not resolve, a TLS
    failure), as `Type: message`; "" when none does."""
    found = ""
    seen: set[int] = set()
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if str(cause).strip():
            found = f"{type(cause).__name__}: {str(cause).strip()}"
        cause = cause.__cause__ or cause.__context__
    return found[:300]


def hide_key(error: ModelAPIError, key: str | None) -> ModelAPIError:
    """`error` with the API key taken out of its message: a server may quote the key it
    refused ("Incorrect API key provided: sk-…"), and the message goes into events, the
    episode's reason and its export. A key of fewer than 8 characters is replaced only where
    it stands alone, so that it does not cut up the words around it."""
    if not key:
        return error
    if len(key) >= 8:
        text = error.message.replace(key, "[API key]")
    else:
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(key)}(?![A-Za-z0-9])", "[API key]", error.message)
    if text != error.message:
        error.message = text
        error.args = (f"{error.kind}: {text}",)
    return error


async def keyless(answer: Awaitable[T], key: str | None) -> T:
    """`await answer`, any `ModelAPIError` it raises with the key taken out (`hide_key`)."""
    try:
        return await answer
    except ModelAPIError as error:
        hide_key(error, key)
        raise


def sdk_error(
    sdk: Any, exc: Exception, provider: str, name: str, key_env: str | None, base_url: str | None
) -> ModelAPIError | None:
    """The `ModelAPIError` for what an SDK's call raised (`sdk`: the `anthropic` or `openai`
    module, whose error classes share their names); None for anything else, to be raised as
    it is. `provider` is the provider's name, `name` the model's (`provider:model-id`)."""
    if isinstance(exc, sdk.APIStatusError):
        return status_error(
            provider, exc.status_code, exc.response.headers, exc.body, exc.message, key_env, base_url
        )
    # APITimeoutError, a subclass of APIConnectionError: first. TimeoutError: the whole call's
    # deadline (`asyncio.timeout`) passed, which the SDK's per-read timeout never sees.
    if isinstance(exc, sdk.APITimeoutError | TimeoutError):
        why = str(exc) or "the whole call ran past its deadline"
        return ModelAPIError("timeout", f"no answer from {name} in time: {why}")
    if isinstance(exc, sdk.APIConnectionError):
        cause = cause_text(exc)
        return ModelAPIError("connection", f"cannot reach {name}: {exc}" + (f" ({cause})" if cause else ""))
    if isinstance(exc, sdk.APIResponseValidationError):
        return unreadable(name, str(exc))
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):  # a body not JSON, or not UTF-8
        return unreadable(name, f"the body is not valid JSON ({exc})")
    return None
