"""The provider-neutral model interface.

The agent loop speaks only these types. A provider maps them to its wire format both ways:
messages (system, user, assistant with tool calls, tool results), tool schemas, parallel tool
calls, usage. A model call either returns a `ModelResponse` or raises `ModelAPIError`, whose
`retryable` flag drives the harness's retry budget (SPEC §2); provider SDKs are configured with
their own retries off so that one policy, ours, counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from contracts.episode import Usage
from harness.models import DEFAULT_MAX_OUTPUT_TOKENS

__all__ = [
    "AssistantMessage",
    "ErrorKind",
    "Message",
    "Model",
    "ModelAPIError",
    "ModelResponse",
    "ModelSettings",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "ToolSpec",
    "Usage",
    "UserMessage",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolSpec(_Strict):
    """A tool as offered to a model: its name, description and JSON-schema input."""

    name: str
    description: str
    input_schema: dict[str, Any]


class ToolCall(_Strict):
    """A tool call as the model made it.

    `arguments` is None when the model's argument text was not a JSON object; `raw_arguments`
    then keeps that text so the harness can answer with a tool error the model can act on.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str | None = None


class SystemMessage(_Strict):
    role: Literal["system"] = "system"
    content: str


class UserMessage(_Strict):
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(_Strict):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    # Opaque provider data that must go back unchanged on the next call (e.g. thinking blocks).
    provider_state: dict[str, Any] | None = None


class ToolMessage(_Strict):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    name: str
    content: str
    is_error: bool = False


Message = Annotated[SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")]


# Stop reasons that mean the reply was cut off at the output-token limit: Anthropic
# `max_tokens`, Chat Completions `length`, Responses `incomplete_details.reason`.
TRUNCATED = frozenset({"max_tokens", "length", "max_output_tokens"})


class ModelResponse(_Strict):
    message: AssistantMessage
    usage: Usage
    latency_s: float = 0.0
    stop_reason: str | None = None  # as the provider said it
    # False when the answer carried no token counts (some OpenAI-compatible servers): its usage
    # is then zeros, and its cost unknown (null), never a price of zero tokens.
    usage_reported: bool = True

    @property
    def truncated(self) -> bool:
        """The reply was cut off at the output-token limit: its tool calls may be incomplete."""
        return self.stop_reason in TRUNCATED


class ModelSettings(_Strict):
    """Sampling and request settings of a run; part of the run identity."""

    temperature: float | None = 0.0
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    reasoning_effort: str | None = None
    # Extra request fields passed through to the provider as they are.
    extra: dict[str, Any] = Field(default_factory=dict)


ErrorKind = Literal[
    "rate_limit",
    "server_error",
    "timeout",
    "connection",
    "bad_request",
    "authentication",
    "context_overflow",
    "other",
]
RETRYABLE_KINDS: frozenset[str] = frozenset({"rate_limit", "server_error", "timeout", "connection"})


class ModelAPIError(Exception):
    """A failed model call. `retryable` errors are retried by the harness (up to its budget)."""

    def __init__(
        self, kind: ErrorKind, message: str, *, status: int | None = None, retry_after_s: float | None = None,
        usage: Usage | None = None, usage_reported: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s
        # The tokens a failed answer still reports (and the provider bills): a 200 that stops on
        # the context window, a Responses answer with status failed, a Chat answer without choices.
        self.usage = usage
        # False for such an answer that carried no counts: billed, at a cost unknown (null).
        self.usage_reported = usage_reported

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS

    @property
    def refuses_access(self) -> bool:
        """The provider refuses this key or model: credentials (401, 403), an unknown model or
        endpoint (404), payment or quota (402, a quota 429, a 400 saying the credit is spent). No
        fault of the model, and no retry helps: an episode whose main agent meets it never ran to
        a verdict."""
        return (
            self.kind == "authentication"
            or self.status in (402, 404)
            or (self.status in (400, 429) and self.kind == "other")
        )


@runtime_checkable
class Model(Protocol):
    """A model: `name` is "provider:model-id"; one instance may serve many agents at once."""

    name: str

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse: ...

    async def aclose(self) -> None: ...
