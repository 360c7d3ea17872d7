"""The fixed lists the warehouse seed draws from: regions, departments, products, accounts."""

from __future__ import annotations

REGIONS = [
    ("NA-EAST", "North America East", "United States"),
    ("NA-WEST", "North America West", "United States"),
    ("LATAM", "Latin America", "Brazil"),
    ("UKI", "United Kingdom and Ireland", "United Kingdom"),
    ("EMEA-C", "Central Europe", "Germany"),
    ("EMEA-S", "Southern Europe and Middle East", "Spain"),
    ("APAC-N", "North Asia", "Japan"),
    ("APAC-S", "South Asia and Pacific", "Australia"),
]
REGION_WEIGHTS = [22, 18, 8, 10, 14, 8, 12, 8]

Band = tuple[int, int]
# code, name, cost center, headcount, head title, head salary band, [(title, band)]
DEPARTMENTS: list[tuple[str, str, str, int, str, Band, list[tuple[str, Band]]]] = [
    ("EXEC", "Executive", "CC-100", 5, "Chief Executive Officer", (310000, 340000),
     [("Chief Operating Officer", (240000, 270000)), ("Chief Technology Officer", (250000, 280000)),
      ("Chief of Staff", (150000, 175000)), ("Executive Assistant", (62000, 75000))]),
    ("SALES", "Sales", "CC-200", 40, "VP Sales", (205000, 230000), []),
    ("MKT", "Marketing", "CC-300", 14, "VP Marketing", (185000, 210000),
     [("Product Marketing Manager", (105000, 130000)), ("Demand Generation Specialist", (78000, 96000)),
      ("Content Strategist", (72000, 90000)), ("Marketing Operations Analyst", (70000, 88000))]),
    ("ENG", "Engineering", "CC-400", 44, "VP Engineering", (220000, 245000),
     [("Software Engineer", (110000, 140000)), ("Senior Software Engineer", (140000, 172000)),
      ("Staff Engineer", (170000, 195000)), ("Hardware Engineer", (115000, 145000)),
      ("QA Engineer", (90000, 112000)), ("Engineering Manager", (165000, 190000))]),
    ("SUP", "Customer Support", "CC-500", 20, "Director of Support", (140000, 160000),
     [("Support Specialist", (52000, 64000)), ("Senior Support Specialist", (64000, 78000)),
      ("Support Team Lead", (80000, 95000))]),
    ("OPS", "Operations", "CC-600", 16, "VP Operations", (175000, 195000),
     [("Supply Chain Analyst", (72000, 90000)), ("Logistics Coordinator", (55000, 68000)),
      ("Field Technician", (58000, 74000)), ("Facilities Manager", (78000, 92000))]),
    ("FIN", "Finance", "CC-700", 10, "Chief Financial Officer", (245000, 270000),
     [("Financial Analyst", (82000, 102000)), ("Senior Accountant", (85000, 104000)),
      ("Controller", (140000, 160000)), ("Accounts Payable Specialist", (56000, 68000))]),
    ("HR", "People", "CC-800", 8, "Head of People", (165000, 185000),
     [("HR Business Partner", (90000, 110000)), ("Recruiter", (70000, 88000)),
      ("People Operations Specialist", (60000, 74000))]),
]  # fmt: skip

# sku, name, category, product line, list price, unit cost, launched on, discontinued
PRODUCTS: list[tuple[str, str, str, str, float, float, str, bool]] = [
    ("HW-G100", "Edge Gateway G1", "Hardware", "Gateways", 640.0, 300.0, "2019-03-01", True),
    ("HW-G200", "Edge Gateway G2", "Hardware", "Gateways", 890.0, 410.0, "2022-05-01", False),
    ("HW-G210", "Edge Gateway G2 Pro", "Hardware", "Gateways", 1290.0, 560.0, "2023-02-01", False),
    ("HW-G300", "Edge Gateway G3", "Hardware", "Gateways", 1490.0, 640.0, "2026-03-01", False),
    ("HW-T100", "Temperature Sensor T100", "Hardware", "Sensors", 79.0, 24.0, "2020-01-15", False),
    ("HW-V200", "Vibration Sensor V200", "Hardware", "Sensors", 149.0, 52.0, "2021-06-01", False),
    ("HW-H050", "Humidity Sensor H50", "Hardware", "Sensors", 69.0, 21.0, "2020-01-15", False),
    ("HW-A300", "Air Quality Sensor A300", "Hardware", "Sensors", 229.0, 88.0, "2026-06-15", False),
    ("HW-P400", "Power Meter P400", "Hardware", "Sensors", 189.0, 71.0, "2022-09-01", False),
    ("HW-D010", "Door Contact D10", "Hardware", "Sensors", 39.0, 11.0, "2020-01-15", False),
    ("HW-C100", "Camera C1", "Hardware", "Cameras", 420.0, 190.0, "2021-01-10", True),
    ("HW-C200", "Camera C2 Thermal", "Hardware", "Cameras", 1150.0, 520.0, "2024-04-01", False),
    ("HW-K001", "Mounting Kit", "Hardware", "Accessories", 29.0, 8.0, "2020-01-15", False),
    ("HW-K002", "PoE Injector", "Hardware", "Accessories", 49.0, 17.0, "2020-01-15", False),
    ("HW-K003", "Battery Pack", "Hardware", "Accessories", 35.0, 12.0, "2021-03-01", False),
    ("HW-K004", "Outdoor Enclosure", "Hardware", "Accessories", 119.0, 41.0, "2022-01-20", False),
    (
        "SW-P100",
        "Fleet Analytics Standard (annual)",
        "Software",
        "Platform",
        4800.0,
        380.0,
        "2019-03-01",
        False,
    ),
    ("SW-P200", "Fleet Analytics Pro (annual)", "Software", "Platform", 12000.0, 900.0, "2020-09-01", False),
    (
        "SW-P300",
        "Fleet Analytics Enterprise (annual)",
        "Software",
        "Platform",
        36000.0,
        2400.0,
        "2022-02-01",
        False,
    ),
    ("SW-M010", "Predictive Maintenance Module", "Software", "Add-ons", 6000.0, 300.0, "2023-05-01", False),
    ("SW-M020", "Energy Insights Module", "Software", "Add-ons", 4500.0, 250.0, "2024-01-15", False),
    ("SW-M030", "Compliance Reporting Module", "Software", "Add-ons", 3600.0, 200.0, "2022-07-01", False),
    ("SW-M040", "API Access Pack", "Software", "Add-ons", 2400.0, 120.0, "2021-04-01", False),
    ("SW-M050", "SSO and Audit Log", "Software", "Add-ons", 1800.0, 90.0, "2025-02-01", False),
    ("SW-F001", "Field App seat (annual)", "Software", "Mobile", 240.0, 12.0, "2021-08-01", False),
    ("SV-S100", "Standard Support (annual)", "Services", "Support", 1500.0, 450.0, "2019-03-01", False),
    ("SV-S200", "Premium Support (annual)", "Services", "Support", 4200.0, 1300.0, "2019-03-01", False),
    ("SV-S300", "24x7 Support (annual)", "Services", "Support", 9600.0, 3100.0, "2021-01-01", False),
    (
        "SV-I100",
        "Installation (per day)",
        "Services",
        "Professional services",
        1400.0,
        700.0,
        "2019-03-01",
        False,
    ),
    (
        "SV-I200",
        "Integration Workshop",
        "Services",
        "Professional services",
        3200.0,
        1500.0,
        "2020-05-01",
        False,
    ),
    (
        "SV-I300",
        "Custom Dashboard Build",
        "Services",
        "Professional services",
        5500.0,
        2600.0,
        "2022-03-01",
        False,
    ),
    ("SV-T100", "Training Session", "Services", "Professional services", 900.0, 380.0, "2019-03-01", False),
    ("SV-V100", "Site Survey", "Services", "Professional services", 750.0, 330.0, "2020-05-01", False),
]

# quantity range per line by category, for a mid-sized customer
QUANTITY = {"Hardware": (10, 110), "Software": (1, 7), "Services": (1, 8)}

CUSTOMER_PREFIXES = [
    "Acme",
    "Northwind",
    "Blue Harbor",
    "Granite",
    "Silverline",
    "Redwood",
    "Summit",
    "Ironbridge",
    "Lakeshore",
    "Polar",
    "Sunrise",
    "Crescent",
    "Evergreen",
    "Keystone",
    "Pioneer",
    "Riverbend",
    "Orchid",
    "Falcon",
    "Cobalt",
    "Meridian",
    "Atlas",
    "Beacon",
    "Vertex",
    "Aurora",
]
CUSTOMER_SUFFIXES = [
    ("Logistics", "Logistics"), ("Manufacturing", "Manufacturing"), ("Foods", "Food and Beverage"),
    ("Energy", "Energy"), ("Health", "Healthcare"), ("Retail", "Retail"), ("Utilities", "Utilities"),
    ("Pharma", "Pharmaceuticals"), ("Cold Chain", "Logistics"), ("Facilities", "Real Estate"),
    ("Mining", "Mining"), ("Agritech", "Agriculture"),
]  # fmt: skip

# account number, name, type, category
ACCOUNTS = [
    ("4000", "Hardware revenue", "revenue", "Revenue"),
    ("4100", "Software revenue", "revenue", "Revenue"),
    ("4200", "Services revenue", "revenue", "Revenue"),
    ("5000", "Cost of goods sold", "expense", "Cost of sales"),
    ("6000", "Salaries and wages", "expense", "Personnel"),
    ("6100", "Payroll taxes and benefits", "expense", "Personnel"),
    ("6200", "Rent and facilities", "expense", "Operating"),
    ("6300", "Travel and entertainment", "expense", "Operating"),
    ("6400", "Software and subscriptions", "expense", "Operating"),
    ("6500", "Marketing programs", "expense", "Operating"),
    ("6600", "Professional fees", "expense", "Operating"),
    ("6700", "Training and development", "expense", "Operating"),
    ("6800", "Depreciation", "expense", "Operating"),
    ("6900", "Office and supplies", "expense", "Operating"),
]
ACCOUNT_NAMES = {number: name for number, name, _t, _c in ACCOUNTS}

# monthly operating expenses: account, department code, base amount
OPEX = [
    ("6200", "OPS", 62000.0), ("6800", "OPS", 12500.0), ("6900", "OPS", 5200.0),
    ("6300", "SALES", 18000.0), ("6300", "EXEC", 6500.0), ("6300", "MKT", 4200.0), ("6300", "SUP", 1800.0),
    ("6300", "ENG", 3000.0), ("6400", "ENG", 22000.0), ("6400", "SUP", 6000.0), ("6400", "SALES", 7500.0),
    ("6400", "FIN", 3200.0), ("6400", "HR", 2600.0), ("6400", "MKT", 5100.0), ("6400", "OPS", 3900.0),
    ("6500", "MKT", 46000.0), ("6600", "FIN", 15000.0), ("6600", "HR", 5200.0), ("6600", "EXEC", 8000.0),
    ("6700", "HR", 4000.0), ("6700", "ENG", 3100.0), ("6700", "SUP", 1500.0),
]  # fmt: skip
