"""The hex part of ``umpire demo`` (issue 14): a Musket & Pike close combat and a reaction check
on the shipped Edgehill position, printed as an umpire would say them at the table.

The rulings are ``charges.hex_rule``'s and every sentence is the engine's own explanation; this
module only picks which sentences to read out (a modifier worth 0 is left out of the spoken
list, and said so) and names the units as their counters do.
"""

from __future__ import annotations

from typing import Any

import charges
from geometry.hexgrid import LabelOrigin
from server import hex_samples
from server.cli import out

SAMPLE = "edgehill"
DEFENDER = "par-ramsey"
#: Rupert's Horse enters the hex in front of Ramsey's Horse (HEX.md 14: one trigger record).
EVENT = {"kind": "enter_hex", "unit": "roy-rupert", "hex": [0, 1]}


def _hex_name(position: dict[str, Any], h: list[int]) -> str:
    """The hex as the map prints it (``1011``) when the map has labels, else ``[q, r]``."""
    lo = position.get("map", {}).get("label_origin")
    if not isinstance(lo, dict):
        return f"hex {h}"
    labels = LabelOrigin(lo.get("col0", 0), lo.get("row0", 0), lo.get("parity", 0))
    return f"hex {labels.to_label((h[0], h[1]))}"


def spoken_combat(ruling: dict[str, Any]) -> list[str]:
    """The close-combat explanation with the modifiers worth 0 left out (and counted)."""
    silent = {f"{i['why']} ({i['rule']})." for i in ruling.get("items", []) if i["value"] == 0}
    lines = [s for s in ruling["explanation"] if s not in silent]
    if silent:
        total = next((i for i, s in enumerate(lines) if s.startswith("In all")), len(lines))
        lines.insert(total, f"The other {len(silent)} modifiers are 0.")
    return lines


def demo_hex() -> tuple[dict[str, Any], dict[str, Any]]:
    """Print the two rulings; return them (for the tests)."""
    position = hex_samples.position(SAMPLE)
    assert position is not None, f"the sample {SAMPLE} is shipped with the server"
    data = hex_samples.rules_data(position.get("rules_data"))
    names = {u["id"]: u.get("name", u["id"]) for u in position["units"]}
    out.print(f"\n[bold]Hex-and-counter games[/]: {position['title']}, with illustrative rules "
              f"data (invented numbers, not the game's tables).", highlight=False)

    combat = charges.hex_rule("combat", position, rules_data=data, defender=DEFENDER)
    attackers = " and ".join(names.get(a, a) for a in combat.get("attackers", []))
    out.print(f"[bold]Close combat[/]: {attackers} against {names[DEFENDER]}: "
              f"[bold]{combat['net']:+d}[/] to the attacker's die roll.", highlight=False)
    for line in spoken_combat(combat):
        out.print(f"  {line}", highlight=False)

    reactions = charges.hex_rule("reactions", position, rules_data=data, event=EVENT)
    out.print(f"[bold]Reactions[/]: {names[EVENT['unit']]} enters "
              f"{_hex_name(position, EVENT['hex'])}. Who may react?", highlight=False)
    for line in reactions["explanation"]:
        out.print(f"  {line}", highlight=False)
    return combat, reactions
