"""`market`: a stock market data service (tickers, daily prices, financials, news, watchlists)."""
