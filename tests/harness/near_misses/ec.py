"""Near misses of the ec tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss

NOTICE = "mcp__mail__send_message"

MISSES: list[NearMiss] = [
    # ec-unpaid-orders-cancel
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a notice with the right subject says the order ships",
        replace=(
            (
                "we did not receive the payment for your order ORD-100834 (53.99 EUR), so we have cancelled it.",
                "thank you for your order ORD-100834 (53.99 EUR). It will ship soon.",
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a notice says it was cancelled but gives no reason",
        replace=(
            (
                "we did not receive the payment for your order ORD-100835 (513.97 EUR), so we have cancelled it.",
                "your order ORD-100835 (513.97 EUR) has been cancelled.",
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a subject that does not say cancelled",
        replace=(("Order ORD-100849 cancelled", "Your order ORD-100849"),),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a November order, still within the payment window, cancelled too",
        extra=(
            ("mcp__shop__cancel_order", {"order_number": "ORD-100862", "reason": "payment not received"}),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "the customer of a November order told it was cancelled",
        extra=(
            (
                NOTICE,
                {
                    "to": ["ana.eriksen2@mail.example"],
                    "subject": "Order ORD-100862 cancelled",
                    "body": "We cancelled your order ORD-100862 because the payment did not arrive.",
                },
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "two messages to one customer",
        extra=(
            (
                NOTICE,
                {
                    "to": ["nadia.nakamura@mail.example"],
                    "subject": "Order ORD-100834 cancelled",
                    "body": "We cancelled your order ORD-100834 because the payment did not arrive.",
                },
            ),
        ),
    ),
]
