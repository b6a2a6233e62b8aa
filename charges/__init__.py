"""The rules of the charge umpire (DESIGN.md, ``charges/``): pure functions of a scene.

``rule(request)`` gives the ruling JSON; ``odds(...)`` the chance of a charge roll.
"""

from .charge_map import MapEntry, charge_map
from .dice import BEST_TWO_OF_THREE, TWO_D6, DiceRule, format_chance
from .errors import RequestError
from .hex import hex_rule
from .odds import OddsReport, odds
from .rulesets import RULESETS, Ruleset, get_ruleset
from .ruling import rule
from .situation import situation

__all__ = ["rule", "odds", "charge_map", "MapEntry", "OddsReport", "RequestError", "DiceRule",
           "TWO_D6", "BEST_TWO_OF_THREE", "format_chance", "RULESETS", "Ruleset", "get_ruleset",
           "situation", "hex_rule"]
