"""The `shop` server: read the catalogue, stock, customers, orders, coupons and reviews; write
orders, cancellations, refunds, restocks, coupons and order status (SPEC §5, scenario EC).

The read tools are here; the write tools, with the store's validation, are in `orders.py`.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from mcp_servers.common.paging import paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader
from mcp_servers.common.values import LIKE_ESCAPE, finite, iso_date, like_pattern, one_of
from mcp_servers.shop import records
from mcp_servers.shop.orders import register_writes
from mcp_servers.shop.schema import (
    ORDER_STATUSES,
    TABLES,
    TODAY,
    ShopCoupon,
    ShopCustomer,
    ShopOrder,
    ShopProduct,
    ShopReview,
    ShopStock,
)
from mcp_servers.shop.seed import seed

READ = "commerce-records-lookup"


def _date(value: str | None, name: str) -> str | None:
    return None if value is None else iso_date(value, name)


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "shop",
        instructions=f"An online shop's back office (EUR). Today is {TODAY}. Orders: pending -> paid -> "
        "shipped -> delivered; cancel before shipping, refund after payment.",
    )

    def ratings() -> Any:
        return (
            select(ShopReview.product_id, func.avg(ShopReview.rating).label("avg"), func.count().label("n"))
            .group_by(col(ShopReview.product_id))
            .subquery()
        )

    @reader(app, READ)
    def search_products(
        query: str | None = None,
        category: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        in_stock_only: bool = False,
        sort: Literal["name", "price_asc", "price_desc", "rating"] = "name",
        page: int = 1,
        page_size: int = 20,
    ) -> str:
        """Search the catalogue, one page at a time: `query` matches name, brand or SKU (case-insensitive);
        filter by category (Audio, Computing, Home, Kitchen, Outdoor, Fitness, Office), price range and
        stock. Each item: sku, name, category, brand, price, on_hand, average rating and review count."""
        with Session(ctx.engine) as s:
            r = ratings()
            stmt = (
                select(ShopProduct, ShopStock, r.c.avg, r.c.n)
                .join(ShopStock, col(ShopStock.product_id) == ShopProduct.id)
                .outerjoin(r, r.c.product_id == ShopProduct.id)
            )
            if query:
                like = like_pattern(query.strip().lower())
                stmt = stmt.where(
                    or_(
                        func.lower(ShopProduct.name).like(like, escape=LIKE_ESCAPE),
                        func.lower(ShopProduct.brand).like(like, escape=LIKE_ESCAPE),
                        func.lower(ShopProduct.sku).like(like, escape=LIKE_ESCAPE),
                    )
                )
            if category:
                known = s.execute(
                    select(ShopProduct.category).distinct().order_by(ShopProduct.category)
                ).scalars()
                by_lower = {c.lower(): c for c in known}
                wanted = by_lower.get(category.strip().lower())
                stmt = stmt.where(
                    ShopProduct.category == one_of(wanted or category, by_lower.values(), "category")
                )
            if min_price is not None:
                stmt = stmt.where(col(ShopProduct.price) >= finite(min_price, "min_price"))
            if max_price is not None:
                stmt = stmt.where(col(ShopProduct.price) <= finite(max_price, "max_price"))
            if in_stock_only:
                stmt = stmt.where(col(ShopStock.on_hand) > 0)
            orderings: dict[str, list[Any]] = {
                "name": [col(ShopProduct.name)],
                "price_asc": [col(ShopProduct.price)],
                "price_desc": [col(ShopProduct.price).desc()],
                "rating": [func.coalesce(r.c.avg, 0).desc()],
            }
            stmt = stmt.order_by(*orderings[sort], col(ShopProduct.sku))
            return as_json(
                paginate(
                    s,
                    stmt,
                    page,
                    page_size,
                    lambda row: records.product_dict(row[0], row[1], (row[2], row[3])),
                )
            )

    @reader(app, READ)
    def get_product(sku: str) -> str:
        """One product by SKU (e.g. AUD-1001): details, stock (on hand, reorder level, bin) and its rating."""
        with Session(ctx.engine) as s:
            p = records.product(s, sku)
            st = records.stock(s, p.id)
            avg, n = s.execute(
                select(func.avg(ShopReview.rating), func.count()).where(ShopReview.product_id == p.id)
            ).one()
            return as_json(
                {
                    **records.fields(p, {"id"}),
                    "stock": records.fields(st, {"id", "product_id"}),
                    "rating": None if avg is None else round(float(avg), 2),
                    "reviews": n,
                }
            )

    @reader(app, READ)
    def low_stock_report(include_inactive: bool = False, page: int = 1, page_size: int = 50) -> str:
        """Products at or below their reorder level, most urgent first (out of stock first), with the
        suggested reorder quantity. Discontinued (inactive) products are left out unless asked for."""
        with Session(ctx.engine) as s:
            stmt = (
                select(ShopProduct, ShopStock)
                .join(ShopStock, col(ShopStock.product_id) == ShopProduct.id)
                .where(col(ShopStock.on_hand) <= col(ShopStock.reorder_level))
                .order_by(
                    col(ShopStock.on_hand) > 0,
                    col(ShopStock.on_hand) - col(ShopStock.reorder_level),
                    col(ShopProduct.sku),
                )
            )
            if not include_inactive:
                stmt = stmt.where(col(ShopProduct.active).is_(True))

            def render(row: Any) -> dict[str, Any]:
                p, st = row
                return {
                    "sku": p.sku, "name": p.name, "on_hand": st.on_hand, "reorder_level": st.reorder_level,
                    "reorder_quantity": st.reorder_quantity, "bin_location": st.bin_location,
                }  # fmt: skip

            return as_json(paginate(s, stmt, page, page_size, render))

    @reader(app, READ)
    def find_customers(query: str, page: int = 1, page_size: int = 20) -> str:
        """Find customers whose name, e-mail or customer number contains `query` (case-insensitive)."""
        if not query.strip():
            raise ToolError("query must not be empty")
        with Session(ctx.engine) as s:
            like = like_pattern(query.strip().lower())
            stmt = (
                select(ShopCustomer)
                .where(
                    or_(
                        func.lower(ShopCustomer.name).like(like, escape=LIKE_ESCAPE),
                        func.lower(ShopCustomer.email).like(like, escape=LIKE_ESCAPE),
                        func.lower(ShopCustomer.customer_number).like(like, escape=LIKE_ESCAPE),
                    )
                )
                .order_by(col(ShopCustomer.customer_number))
            )
            return as_json(paginate(s, stmt, page, page_size, lambda row: records.fields(row[0], {"id"})))

    @reader(app, READ)
    def get_customer(customer: str) -> str:
        """One customer by number (CU10001), e-mail or id, with order count, amount paid and refunded."""
        with Session(ctx.engine) as s:
            c = records.customer(s, customer)
            n, paid, refunded = s.execute(
                select(
                    func.count(), func.sum(ShopOrder.paid_amount), func.sum(ShopOrder.refunded_amount)
                ).where(ShopOrder.customer_id == c.id)
            ).one()
            return as_json(
                {
                    **records.fields(c, {"id"}),
                    "orders": n,
                    "total_paid": round(paid or 0.0, 2),
                    "total_refunded": round(refunded or 0.0, 2),
                }
            )

    @reader(app, READ)
    def get_order(order_number: str) -> str:
        """One order by number (ORD-100123): customer, lines, totals, coupon, refunds and status history."""
        with Session(ctx.engine) as s:
            return as_json(records.order_detail(s, records.order(s, order_number)))

    @reader(app, READ)
    def list_orders(
        customer: str | None = None,
        status: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        page: int = 1,
        page_size: int = 25,
    ) -> str:
        """Orders, newest first, one page at a time; filter by customer (number, e-mail or id), status
        (pending, paid, shipped, delivered, cancelled, refunded) and placement dates (YYYY-MM-DD, inclusive)."""
        if status is not None and status not in ORDER_STATUSES:
            raise ToolError(f"status must be one of {', '.join(ORDER_STATUSES)}")
        start, end = _date(date_from, "date_from"), _date(date_to, "date_to")
        with Session(ctx.engine) as s:
            stmt = (
                select(ShopOrder, ShopCustomer)
                .join(ShopCustomer, col(ShopCustomer.id) == ShopOrder.customer_id)
                .order_by(col(ShopOrder.placed_at).desc(), col(ShopOrder.id).desc())
            )
            if customer:
                stmt = stmt.where(ShopOrder.customer_id == records.customer(s, customer).id)
            if status:
                stmt = stmt.where(ShopOrder.status == status)
            if start:
                stmt = stmt.where(col(ShopOrder.placed_at) >= start)
            if end:
                stmt = stmt.where(col(ShopOrder.placed_at) < end + "T99")
            return as_json(
                paginate(s, stmt, page, page_size, lambda row: records.order_summary(row[0], row[1]))
            )

    @reader(app, READ)
    def list_reviews(
        sku: str,
        min_rating: int = 1,
        max_rating: int = 5,
        page: int = 1,
        page_size: int = 20,
    ) -> str:
        """Reviews of a product, newest first, one page at a time, with the product's rating summary
        (average and count per star). Filter with min_rating/max_rating (1-5)."""
        if not 1 <= min_rating <= max_rating <= 5:
            raise ToolError("ratings go from 1 to 5, and min_rating must not exceed max_rating")
        with Session(ctx.engine) as s:
            p = records.product(s, sku)
            counts = dict(
                s.execute(
                    select(ShopReview.rating, func.count())
                    .where(ShopReview.product_id == p.id)
                    .group_by(col(ShopReview.rating))
                ).all()
            )
            total = sum(counts.values())
            stmt = (
                select(ShopReview, ShopCustomer)
                .join(ShopCustomer, col(ShopCustomer.id) == ShopReview.customer_id)
                .where(ShopReview.product_id == p.id, col(ShopReview.rating).between(min_rating, max_rating))
                .order_by(col(ShopReview.created_at).desc(), col(ShopReview.id).desc())
            )

            def render(row: Any) -> dict[str, Any]:
                r, c = row
                return {
                    "rating": r.rating, "title": r.title, "body": r.body, "created_at": r.created_at,
                    "verified_purchase": r.verified_purchase, "customer": c.customer_number,
                }  # fmt: skip

            summary = {
                "average": round(sum(k * v for k, v in counts.items()) / total, 2) if total else None,
                "count": total,
                "stars": {str(k): counts.get(k, 0) for k in range(5, 0, -1)},
            }
            return as_json(
                {
                    "sku": p.sku,
                    "name": p.name,
                    "summary": summary,
                    **paginate(s, stmt, page, page_size, render),
                }
            )

    @reader(app, READ)
    def list_coupons(
        state: Literal["all", "valid", "expired", "scheduled", "exhausted", "inactive"] = "all",
    ) -> str:
        """Coupons with their terms (percent or fixed EUR, minimum order, validity dates, uses) and their
        state today: valid, scheduled, expired, exhausted or inactive."""
        with Session(ctx.engine) as s:
            coupons = s.execute(select(ShopCoupon).order_by(col(ShopCoupon.code))).scalars()
            out = [records.coupon_dict(c) for c in coupons]
        return as_json([c for c in out if state == "all" or c["state"] == state])

    register_writes(app, ctx)
    return app


SPEC = ServerSpec(
    name="shop",
    description="E-commerce back office: products, stock, customers, orders, coupons, reviews, refunds",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="EC",
)
