"""`shop`: an e-commerce back office (catalogue, stock, customers, orders, coupons, reviews, refunds)."""
