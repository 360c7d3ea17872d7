"""Deterministic people for seed data: names and e-mail addresses from fixed lists."""

from __future__ import annotations

import random

FIRST = (
    "Ada Alan Amara Ana Arjun Aylin Bea Ben Carla Chen Chloe Daniel Dara Diego Elena Emeka Emma Farah "
    "Felix Grace Hana Hugo Ines Ivan Jade Jonas Kai Kenji Lara Leo Lina Lucas Maya Mei Milan Nadia Noah "
    "Nora Omar Priya Rafael Rosa Sami Sara Sofia Tariq Theo Uma Victor Wen Yara Yusuf Zoe"
).split()
LAST = (
    "Abara Alvarez Andersen Bauer Becker Costa Dubois Eriksen Fischer Garcia Haddad Hansen Ito Jensen Kaur "
    "Kim Kowalski Larsen Lopez Martin Meyer Moreau Nakamura Novak Okafor Olsen Park Patel Petrov Rossi "
    "Santos Schmidt Silva Singh Sato Tanaka Torres Varga Wagner Weber Wong Yilmaz Zhang"
).split()


def people(n: int, seed: int, domain: str) -> list[tuple[str, str]]:
    """`n` distinct (name, email) pairs, the same for the same arguments."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    while len(out) < n:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        name = f"{first} {last}"
        base = f"{first}.{last}".lower()
        email, k = f"{base}@{domain}", 2
        while email in seen:
            email, k = f"{base}{k}@{domain}", k + 1
        seen.add(email)
        out.append((name, email))
    return out
