"""E-commerce tables. Money is in EUR as float rounded to cents; dates are ISO text
(`placed_at` is YYYY-MM-DDTHH:MM:SS). The world's clock stands at `TODAY`.

Order life cycle: pending (awaiting payment) -> paid -> shipped -> delivered; an order not yet
shipped can be cancelled (what was paid is refunded); paid, shipped or delivered orders can be
refunded in part or in full (status `refunded` once nothing is left to refund).
"""

from __future__ import annotations

from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
NOW = f"{TODAY}T12:00:00"
ORDER_STATUSES = ("pending", "paid", "shipped", "delivered", "cancelled", "refunded")


class ShopProduct(SQLModel, table=True):
    __tablename__ = "shop_products"
    id: int | None = Field(default=None, primary_key=True)
    sku: str = Field(unique=True, index=True)
    name: str
    category: str = Field(index=True)
    brand: str
    price: float
    description: str
    active: bool = True
    created_on: str


class ShopStock(SQLModel, table=True):
    __tablename__ = "shop_stock"
    id: int | None = Field(default=None, primary_key=True)
    product_id: int = Field(foreign_key="shop_products.id", unique=True)
    on_hand: int
    reorder_level: int
    reorder_quantity: int
    bin_location: str
    last_restocked: str


class ShopCustomer(SQLModel, table=True):
    __tablename__ = "shop_customers"
    id: int | None = Field(default=None, primary_key=True)
    customer_number: str = Field(unique=True, index=True)
    name: str
    email: str = Field(unique=True, index=True)
    city: str
    country: str
    tier: str  # standard | silver | gold
    joined_on: str


class ShopCoupon(SQLModel, table=True):
    __tablename__ = "shop_coupons"
    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, index=True)
    kind: str  # percent | fixed
    value: float
    min_order_total: float = 0.0
    valid_from: str
    valid_until: str
    max_uses: int | None = None
    used_count: int = 0
    active: bool = True
    description: str = ""


class ShopOrder(SQLModel, table=True):
    __tablename__ = "shop_orders"
    id: int | None = Field(default=None, primary_key=True)
    order_number: str = Field(unique=True, index=True)
    customer_id: int = Field(foreign_key="shop_customers.id", index=True)
    placed_at: str = Field(index=True)
    status: str = Field(index=True)
    coupon_code: str | None = None
    subtotal: float
    discount: float
    shipping_fee: float
    total: float
    paid_amount: float
    refunded_amount: float = 0.0
    ship_city: str
    ship_country: str


class ShopOrderLine(SQLModel, table=True):
    __tablename__ = "shop_order_lines"
    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="shop_orders.id", index=True)
    product_id: int = Field(foreign_key="shop_products.id", index=True)
    quantity: int
    unit_price: float
    line_total: float


class ShopOrderEvent(SQLModel, table=True):
    __tablename__ = "shop_order_events"
    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="shop_orders.id", index=True)
    at: str
    status: str
    note: str = ""


class ShopReview(SQLModel, table=True):
    __tablename__ = "shop_reviews"
    id: int | None = Field(default=None, primary_key=True)
    product_id: int = Field(foreign_key="shop_products.id", index=True)
    customer_id: int = Field(foreign_key="shop_customers.id", index=True)
    rating: int
    title: str
    body: str
    created_at: str
    verified_purchase: bool = True


class ShopRefund(SQLModel, table=True):
    __tablename__ = "shop_refunds"
    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="shop_orders.id", index=True)
    amount: float
    reason: str
    created_at: str


TABLES = (
    ShopProduct,
    ShopStock,
    ShopCustomer,
    ShopCoupon,
    ShopOrder,
    ShopOrderLine,
    ShopOrderEvent,
    ShopReview,
    ShopRefund,
)
