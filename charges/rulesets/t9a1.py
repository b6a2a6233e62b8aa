"""The 9th Age 1.x, the seed's rules (ruleset ``t9a-1``, RULES.md 1-8): the base's defaults."""

from __future__ import annotations

from . import register
from .base import Ruleset

T9A_1 = register(Ruleset("t9a-1", "The 9th Age 1.x (seed rules)"))
