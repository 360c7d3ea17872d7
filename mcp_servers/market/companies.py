"""The listed companies of the market world (fictional), and the text the news seed draws on."""

from __future__ import annotations

from typing import NamedTuple


class Company(NamedTuple):
    symbol: str
    name: str
    sector: str
    industry: str
    exchange: str
    price: float  # first open of 2026, USD
    cap_bn: float  # market capitalisation then, USD billions
    revenue_m: float  # quarterly revenue at the start of 2025, USD millions
    gross_margin: float
    op_margin: float
    growth: float  # year-over-year revenue growth
    vol: float  # annualised volatility
    beta: float
    drift: float  # annual expected return
    dividend: float  # dividend yield, %


COMPANIES = [
    Company("NOVA", "Novatech Systems", "Technology", "Enterprise Software", "NASDAQ", 312.4, 410, 9800, 0.78, 0.34, 0.16, 0.30, 1.15, 0.22, 0.4),
    Company("QBIT", "Qubit Dynamics", "Technology", "Quantum Computing", "NASDAQ", 48.9, 14, 120, 0.52, -0.35, 0.65, 0.62, 1.6, 0.30, 0.0),
    Company("CLDX", "Cloudex", "Technology", "Cloud Infrastructure", "NYSE", 156.2, 96, 2900, 0.66, 0.18, 0.24, 0.38, 1.3, 0.18, 0.0),
    Company("SEMI", "Silicon Meridian", "Technology", "Semiconductors", "NASDAQ", 221.7, 265, 7400, 0.61, 0.31, 0.21, 0.42, 1.45, 0.25, 0.6),
    Company("DATA", "Datastream Analytics", "Technology", "Data Platforms", "NYSE", 74.3, 22, 640, 0.71, 0.08, 0.19, 0.40, 1.25, -0.05, 0.0),
    Company("MEDX", "Medexa Therapeutics", "Healthcare", "Biotechnology", "NASDAQ", 88.1, 31, 950, 0.84, 0.22, 0.12, 0.36, 0.9, 0.10, 0.0),
    Company("GENO", "Genova Biosciences", "Healthcare", "Genomics", "NASDAQ", 35.6, 6.8, 180, 0.58, -0.12, 0.28, 0.55, 1.2, -0.15, 0.0),
    Company("CARE", "CareBridge Health", "Healthcare", "Health Services", "NYSE", 132.8, 58, 11200, 0.19, 0.07, 0.08, 0.22, 0.7, 0.08, 1.4),
    Company("VITL", "Vital Devices", "Healthcare", "Medical Devices", "NYSE", 204.5, 47, 1900, 0.64, 0.24, 0.09, 0.24, 0.8, 0.12, 1.0),
    Company("HRBR", "Harbor Financial", "Financials", "Banks", "NYSE", 61.2, 88, 6900, 0.0, 0.36, 0.05, 0.25, 1.1, 0.09, 3.1),
    Company("ASST", "Assetline Capital", "Financials", "Asset Management", "NYSE", 97.4, 29, 1300, 0.0, 0.38, 0.11, 0.28, 1.2, 0.12, 2.2),
    Company("INSR", "Shieldpoint Insurance", "Financials", "Insurance", "NYSE", 143.9, 41, 5200, 0.0, 0.14, 0.06, 0.19, 0.75, 0.07, 2.0),
    Company("SOLR", "Solaris Power", "Energy", "Solar", "NASDAQ", 42.7, 12, 820, 0.27, 0.09, 0.31, 0.52, 1.35, 0.05, 0.0),
    Company("PETX", "Petrox Energy", "Energy", "Oil and Gas", "NYSE", 104.3, 152, 21500, 0.38, 0.21, -0.03, 0.27, 0.9, 0.02, 3.8),
    Company("WIND", "Windward Renewables", "Energy", "Wind Power", "NYSE", 27.8, 9.5, 640, 0.31, 0.11, 0.18, 0.40, 1.0, -0.08, 1.2),
    Company("RTLX", "Retailix", "Consumer Discretionary", "E-commerce", "NASDAQ", 185.6, 210, 16800, 0.44, 0.09, 0.14, 0.33, 1.2, 0.16, 0.0),
    Company("AUTO", "Autonova Motors", "Consumer Discretionary", "Electric Vehicles", "NASDAQ", 64.2, 70, 7900, 0.17, 0.04, 0.22, 0.58, 1.7, -0.10, 0.0),
    Company("TRVL", "Travelio", "Consumer Discretionary", "Travel Services", "NASDAQ", 118.5, 35, 1450, 0.82, 0.21, 0.13, 0.35, 1.25, 0.14, 0.0),
    Company("FOOD", "Harvest Foods", "Consumer Staples", "Packaged Foods", "NYSE", 58.9, 34, 6100, 0.33, 0.14, 0.03, 0.16, 0.55, 0.05, 3.0),
    Company("BREW", "Brewmaster Beverages", "Consumer Staples", "Beverages", "NYSE", 71.4, 48, 4700, 0.57, 0.22, 0.05, 0.17, 0.6, 0.06, 2.7),
    Company("HOME", "Homestead Goods", "Consumer Staples", "Household Products", "NYSE", 126.3, 61, 5600, 0.47, 0.19, 0.04, 0.15, 0.5, 0.07, 2.4),
    Company("AERO", "Aerodyne Industries", "Industrials", "Aerospace", "NYSE", 246.8, 118, 8300, 0.24, 0.13, 0.11, 0.28, 1.05, 0.15, 1.5),
    Company("RAIL", "Railcore Logistics", "Industrials", "Freight and Logistics", "NYSE", 89.7, 44, 3900, 0.30, 0.18, 0.04, 0.24, 0.95, 0.04, 1.9),
    Company("BLDR", "Buildright Construction", "Industrials", "Construction", "NYSE", 53.4, 16, 2600, 0.18, 0.08, 0.09, 0.33, 1.15, 0.11, 1.1),
    Company("STRM", "Streamly Media", "Communication Services", "Streaming", "NASDAQ", 412.3, 175, 9300, 0.42, 0.22, 0.12, 0.34, 1.1, 0.18, 0.0),
    Company("TELX", "Telexa Communications", "Communication Services", "Telecom", "NYSE", 38.6, 72, 10400, 0.58, 0.21, 0.01, 0.17, 0.6, 0.01, 5.2),
    Company("GRID", "Gridline Utilities", "Utilities", "Electric Utilities", "NYSE", 79.5, 39, 3400, 0.41, 0.24, 0.04, 0.15, 0.45, 0.06, 3.4),
    Company("AQUA", "Aquaris Water", "Utilities", "Water Utilities", "NYSE", 131.1, 22, 1050, 0.55, 0.33, 0.05, 0.16, 0.5, 0.07, 2.1),
    Company("MTLX", "Metallix Mining", "Materials", "Metals and Mining", "NYSE", 46.3, 27, 3100, 0.29, 0.19, 0.06, 0.38, 1.3, 0.13, 2.6),
    Company("REIT", "Keystone Realty Trust", "Real Estate", "REIT", "NYSE", 92.6, 26, 720, 0.68, 0.41, 0.03, 0.22, 0.85, 0.03, 4.6),
]  # fmt: skip

# NYSE holidays of 2025 (the stored bars start in October) and of 2026
HOLIDAYS_2025 = {
    "2025-01-01", "2025-01-20", "2025-02-17", "2025-04-18", "2025-05-26", "2025-06-19", "2025-07-04",
    "2025-09-01", "2025-11-27", "2025-12-25",
}  # fmt: skip
HOLIDAYS_2026 = {
    "2026-01-01", "2026-01-19", "2026-02-16", "2026-04-03", "2026-05-25", "2026-06-19", "2026-07-03",
    "2026-09-07", "2026-11-26", "2026-12-25",
}  # fmt: skip

SOURCES = ["MarketWire", "Financial Ledger", "Street Journal", "Capital Times", "Bourse Daily"]
UP_REASONS = [
    "after an analyst upgrade",
    "on a new multi-year contract",
    "as a rival stumbles",
    "on takeover speculation",
    "after raising its full-year outlook",
    "on strong sector data",
]
DOWN_REASONS = [
    "after an analyst downgrade",
    "on a product recall",
    "as a key customer walks away",
    "on regulatory concerns",
    "after cutting its outlook",
    "as its chief financial officer resigns",
]
CORPORATE = [
    ("{name} announces a $ {buyback} billion share buyback", "positive"),
    ("{name} names a new chief technology officer", "neutral"),
    ("{name} opens a new research center in Austin", "neutral"),
    ("{name} launches its next-generation product line", "positive"),
    ("{name} faces a class action over disclosures", "negative"),
    ("{name} completes the acquisition of a smaller competitor", "positive"),
    ("{name} to present at an industry investor conference", "neutral"),
    ("{name} settles a patent dispute", "neutral"),
]
MACRO = [
    ("Central bank holds rates steady, signals patience", "neutral"),
    ("Inflation cools more than expected; stocks rally", "positive"),
    ("Jobs report beats forecasts", "positive"),
    ("Bond yields jump as growth fears ease", "neutral"),
    ("Oil prices slide on rising inventories", "negative"),
    ("Markets tumble on trade tensions", "negative"),
    ("Consumer confidence falls to a six-month low", "negative"),
    ("Manufacturing activity expands for a third month", "positive"),
]
