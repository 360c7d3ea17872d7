"""Pages generated from the other scenarios' fixed data, so the web agrees with them: railway
lines, fares, timetables and station guides; digests of the scholar index's landmark papers and
topic guides; cuisine guides and menus of the caterer; directory entries of the market's listed
companies. Links are written `[anchor](url)`."""

from __future__ import annotations

import random
from dataclasses import dataclass

from mcp_servers.kitchen.catalog import ALLERGENS, INGREDIENTS, MENUS, RECIPES
from mcp_servers.kitchen.nutrition import diet_of
from mcp_servers.market.companies import COMPANIES
from mcp_servers.railway.schema import RAILCARDS
from mcp_servers.railway.seed import EXTRA_TRAINS, FARES, LINES, SALE_DAYS, STATIONS, timetable
from mcp_servers.scholar.seed import ANCHORS, anchor_facts
from mcp_servers.scholar.vocab import TOPICS


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    site: str
    kind: str  # company | news | docs | methodology | blog | guide | paper-summary
    published: str
    body: str


RAIL = "https://meridianrail.example"
TRAVEL = "https://visit-meridia.example"
DIGEST = "https://paperdigest.example"
CATER = "https://aldermoor-catering.example"


def slug(text: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else " " for ch in text.lower()).split())


DAYS = {
    "1234567": "daily",
    "12345": "Monday to Friday",
    "67": "Saturday and Sunday",
    "567": "Friday to Sunday",
}


def _rail() -> list[Page]:
    pages = []
    for line, (base, route, services) in LINES.items():
        stops = ", ".join(f"{n} (km {km:g})" for n, km in route)
        ic = sum(1 for k, _t, _p in services if k == "InterCity")
        weekend = [t for k, t, p in services if p == "67"]
        extra = (
            f" A late Regional service leaves {route[0][0]} at {weekend[0]} on Saturdays and Sundays only."
            if weekend
            else ""
        )
        extra += "".join(
            f" An extra {kind} service, {number}, leaves {origin} at {first}, {DAYS[pattern]} only."
            for ln, number, kind, origin, first, pattern in EXTRA_TRAINS
            if ln == line
        )
        pages.append(Page(
            f"{RAIL}/lines/{slug(line)}", f"{line} | Meridian Rail", "meridianrail.example", "docs", "2026-09-01",
            f"# {line}\n\nThe {line} runs {route[-1][1]:g} km from {route[0][0]} to {route[-1][0]}. Stations: {stops}.\n\n"
            f"Each direction has up to {len(services)} regular trains a day, {ic} of them InterCity services that call only at major stations. "
            f"Train numbers on this line start at {base + 1}.{extra} Full [timetable]({RAIL}/timetables/{slug(line)}).\n\n"
            f"See the [fares and railcards]({RAIL}/fares) page "
            f"and the [network overview]({RAIL}/network).",
        ))  # fmt: skip
    trains = timetable()
    for line in LINES:
        rows = "\n".join(
            f"- {number} ({kind}, {DAYS[pattern]}): "
            + " – ".join(f"{name} {departs or arrives}" for name, arrives, departs, _km in calls)
            for ln, number, kind, pattern, calls in trains
            if ln == line
        )
        pages.append(Page(
            f"{RAIL}/timetables/{slug(line)}", f"{line} timetable | Meridian Rail", "meridianrail.example", "docs",
            "2026-09-01",
            f"# {line} timetable\n\nValid from 1 September 2026 until further notice. Times are departures, and the "
            f"arrival at the last station.\n\n{rows}\n\nBack to the [{line}]({RAIL}/lines/{slug(line)}) page.",
        ))  # fmt: skip
    links = " ".join(f"[{line}]({RAIL}/lines/{slug(line)})" for line in LINES)
    pages.append(Page(
        f"{RAIL}/network", "Network overview | Meridian Rail", "meridianrail.example", "docs", "2026-09-01",
        f"# The Meridian Rail network\n\n{len(STATIONS)} stations on {len(LINES)} lines: {links}. Aldermoor Central is the hub "
        "where the Meridian Main Line, the Westway Line and the Airport Link meet; Harrowgate Junction joins the Valley Line "
        "to the main line, and Eastcombe is the start of the Eastern Branch. InterCity trains call only at major stations.",
    ))  # fmt: skip
    fare_rows = "\n".join(
        f"| {kind} | {cls} | {base:.2f} | {per_km:.2f} |" for (kind, cls), (base, per_km) in FARES.items()
    )
    cards = ", ".join(f"{c} ({round(d * 100)}% off)" for c, d in RAILCARDS.items() if d)
    example = FARES[("InterCity", "second")]
    pages.append(Page(
        f"{RAIL}/fares", "Fares, railcards and refunds | Meridian Rail", "meridianrail.example", "docs", "2026-09-01",
        "# Fares, railcards and refunds\n\nA fare is a base price plus a price per kilometre travelled, by train type and class:\n\n"
        f"| train | class | base | per km |\n{fare_rows}\n\nExample: Northam to Southport Harbour (372 km) on an InterCity in second class "
        f"costs {example[0] + example[1] * 372:.2f}. Railcards: {cards}; the discount applies to every seat on the booking.\n\n"
        f"Seats go on sale {SALE_DAYS} days ahead. Refunds on cancellation: the full fare when you cancel 7 or more days before "
        "travel, half the fare from 2 to 6 days before, nothing after that. Journeys that have taken place cannot be cancelled. "
        f"See the [network overview]({RAIL}/network).",
    ))  # fmt: skip
    rng = random.Random(77)
    sights = ["the old harbour", "the covered market", "a Victorian arcade", "the cathedral", "the river walk",
              "the railway museum", "the botanical garden", "a hill fort", "the lighthouse", "the town hall clock",
              "a craft brewery", "the science centre", "the castle ruins", "a sandy beach", "the canal basin"]  # fmt: skip
    served: dict[str, list[str]] = {}
    for line, (_b, route, _s) in LINES.items():
        for n, _km in route:
            served.setdefault(n, []).append(line)
    for raw, (code, region) in STATIONS.items():
        name = raw.rstrip("*")
        a, b = rng.sample(sights, 2)
        line_links = ", ".join(f"[{ln}]({RAIL}/lines/{slug(ln)})" for ln in served[name])
        kind = (
            "major station with InterCity stops" if raw.endswith("*") else "station served by Regional trains"
        )
        pages.append(Page(
            f"{TRAVEL}/towns/{slug(name)}", f"Visiting {name} | Visit Meridia", "visit-meridia.example", "guide",
            f"2026-0{rng.randint(3, 9)}-{rng.randint(10, 28)}",
            f"# Visiting {name}\n\n{name} (station code {code}) is in the {region} region. It is a {kind}, on the {line_links}.\n\n"
            f"Do not miss {a} and {b}. The town is busiest in summer; in November most sights keep winter hours. "
            f"Plan your train with [Meridian Rail]({RAIL}/network).",
        ))  # fmt: skip
    return pages


def _scholar() -> list[Page]:
    pages = []
    for name, title, year, venue, topic in ANCHORS:
        f = anchor_facts(name)
        pages.append(Page(
            f"{DIGEST}/{slug(name)}", f"Digest: {title}", "paperdigest.example", "paper-summary", f"{year}-12-01",
            f"# {title}\n\n{venue} {year} · topic: {topic}\n\nThe authors propose {name}, an approach to {f.obj} that "
            f"{f.mechanism}. On {f.bench1} it reaches {f.ours1} {f.metric}, {round(f.ours1 - f.base1, 1)} points above "
            f"{f.baseline} ({f.base1}); on {f.bench2} it scores {f.ours2} against {f.base2}.\n\nWhat we liked: the ablation "
            f"shows that removing {f.component} costs {f.ablation_drop} points. Training needs {f.gpus} GPUs for {f.hours} "
            f"hours, with a {f.params_b}B-parameter backbone.\n\nMore on this area in our [guide to {topic}]({DIGEST}/topics/{slug(topic)}).",
        ))  # fmt: skip
    for topic, v in TOPICS.items():
        mine = [a for a in ANCHORS if a[4] == topic]
        listed = "\n".join(f"- [{t}]({DIGEST}/{slug(n)}) ({venue} {y})" for n, t, y, venue, _tp in mine)
        pages.append(Page(
            f"{DIGEST}/topics/{slug(topic)}", f"A field guide to {topic}", "paperdigest.example", "methodology", "2026-10-15",
            f"# A field guide to {topic}\n\nWhat the field works on: {', '.join(v['objects'])}. Typical tasks: "
            f"{', '.join(v['tasks'])}.\n\nHow results are measured: papers report {', '.join(v['metrics'])} on benchmarks "
            f"such as {', '.join(v['benchmarks'])}. Common baselines are {', '.join(v['baselines'])}. When comparing numbers "
            f"across papers, check that the backbone, the budget and the number of seeds match.\n\nLandmark papers:\n{listed}",
        ))  # fmt: skip
    return pages


def _kitchen() -> list[Page]:
    info = {}
    for line in INGREDIENTS.strip().splitlines():
        fields = line.split("|")
        info[fields[0]] = (fields[2], [a for a in fields[8].split(",") if a])
    dishes: dict[str, tuple[str, str, str, list[str]]] = {}
    for cuisine, block in RECIPES.items():
        for row in block.strip().splitlines():
            name, course, parts = row.split("|")
            names = [i.strip() for i in parts.split(",")]
            allergens = sorted({a for n in names for a in info[n][1]})
            dishes[name] = (cuisine, course, diet_of({info[n][0] for n in names}), allergens)
    pages = []
    for cuisine in RECIPES:
        mine = [(n, d) for n, d in dishes.items() if d[0] == cuisine]
        rows = "\n".join(f"- {n} ({d[1]}, {d[2]}; allergens: {', '.join(d[3]) or 'none'})" for n, d in mine)
        vegan = [n for n, d in mine if d[2] == "vegan"]
        pages.append(Page(
            f"{CATER}/guides/{slug(cuisine)}", f"{cuisine} dishes we cook | Aldermoor Catering", "aldermoor-catering.example",
            "guide", "2026-08-20",
            f"# {cuisine} dishes we cook\n\nOur {cuisine} repertoire:\n{rows}\n\nFully vegan: {', '.join(vegan) or 'none'}. "
            f"Every dish can be ordered through a [catering menu]({CATER}/menus). Allergen labels follow our [allergen policy]({CATER}/allergens).",
        ))  # fmt: skip
    for name, description, items in MENUS:
        allergens = sorted({a for i in items for a in dishes[i][3]})
        listed = "\n".join(f"- {i} ({dishes[i][1]})" for i in items)
        pages.append(Page(
            f"{CATER}/menus/{slug(name)}", f"{name} | Aldermoor Catering", "aldermoor-catering.example", "company", "2026-08-15",
            f"# {name}\n\n{description}.\n\n{listed}\n\nContains: {', '.join(allergens) or 'no listed allergens'}. "
            f"Prices per guest are quoted on request; see [how to order]({CATER}/ordering).",
        ))  # fmt: skip
    menu_links = "\n".join(f"- [{n}]({CATER}/menus/{slug(n)})" for n, _d, _i in MENUS)
    pages.append(Page(
        f"{CATER}/menus", "Catering menus | Aldermoor Catering", "aldermoor-catering.example", "company", "2026-08-15",
        f"# Our catering menus\n\n{menu_links}\n\nWe label these {len(ALLERGENS)} allergens: {', '.join(ALLERGENS)}.",
    ))  # fmt: skip
    return pages


def _companies() -> list[Page]:
    """A business directory entry for each listed company of the market scenario."""
    pages = []
    for c in COMPANIES:
        dividend = (
            f"It paid a dividend yielding {c.dividend}% at the start of 2026."
            if c.dividend
            else "It pays no dividend."
        )
        pages.append(Page(
            f"https://bizdirectory.example/companies/{c.symbol.lower()}", f"{c.name} ({c.symbol}) | Business Directory",
            "bizdirectory.example", "company", "2026-01-05",
            f"# {c.name}\n\nTicker {c.symbol} on the {c.exchange}. Sector: {c.sector}; industry: {c.industry}.\n\n"
            f"At the first open of 2026 the share price was {c.price:.2f} USD and the market capitalisation about "
            f"{c.cap_bn:g} billion USD. Quarterly revenue at the start of 2025 was about {c.revenue_m:,.0f} million USD. "
            f"{dividend}\n\nSee the [directory index](https://bizdirectory.example/companies).",
        ))  # fmt: skip
    listed = "\n".join(
        f"- [{c.name} ({c.symbol})](https://bizdirectory.example/companies/{c.symbol.lower()}): {c.industry}"
        for c in COMPANIES
    )
    pages.append(Page(
        "https://bizdirectory.example/companies", "Listed companies | Business Directory", "bizdirectory.example",
        "company", "2026-01-05", f"# Listed companies\n\n{listed}",
    ))  # fmt: skip
    return pages


def generated_pages() -> list[Page]:
    """Every generated page, in a fixed order."""
    return _rail() + _scholar() + _kitchen() + _companies()
