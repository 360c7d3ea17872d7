"""Models: the provider-neutral interface (`base`), retries, prices, and the providers.

Provider modules (`anthropic_provider`, `openai_provider`, `sim`) are imported only when a model
of theirs is made (`registry.make_model`), so importing this package stays cheap.
"""

# The output-token limit per model call unless a run says otherwise (`--max-output-tokens`).
DEFAULT_MAX_OUTPUT_TOKENS = 8192
