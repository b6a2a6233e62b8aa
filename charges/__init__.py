"""The rules of the charge umpire (DESIGN.md, ``charges/``): pure functions of a scene.

``rule(request)`` gives the ruling JSON; ``odds(...)`` the chance of a charge roll.
"""

from .dice import BEST_TWO_OF_THREE, TWO_D6, DiceRule
from .errors import RequestError
from .odds import OddsReport, odds
from .rulesets import RULESETS, Ruleset, get_ruleset
from .ruling import rule
from .situation import situation

__all__ = ["rule", "odds", "OddsReport", "RequestError", "DiceRule", "TWO_D6",
           "BEST_TWO_OF_THREE", "RULESETS", "Ruleset", "get_ruleset", "situation"]
