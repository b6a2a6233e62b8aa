"""``umpire charge`` and ``umpire odds`` (DESIGN.md, Command line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

import charges
from charges.request import request_warnings
from server.cli import InputError, app, err, out, read_json

#: How each option of unit=dice is written, for the message that shows it.
DICE_FORMS = {"--facing-roll": "UNIT=D (one die, e.g. knights=4)"}


def parse_dice(items: list[str], option: str = "--dice") -> dict[str, list[int]]:
    """``--dice knights=3,5`` -> {"knights": [3, 5]}."""
    dice: dict[str, list[int]] = {}
    form = DICE_FORMS.get(option, "UNIT=D1,D2 (e.g. knights=3,5)")
    for item in items:
        uid, sep, values = item.partition("=")
        if not sep or not uid:
            raise InputError(f"{option} {item!r}: write it as {form}")
        if uid in dice:
            raise InputError(f"{option} {item!r}: '{uid}' is given twice")
        try:
            dice[uid] = [int(v) for v in values.split(",") if v.strip()]
        except ValueError:
            raise InputError(f"{option} {item!r}: dice must be whole numbers, e.g. "
                             f"{uid}=3,5") from None
    return dice


OUTCOME_STYLE = {"success": "bold green", "special": "bold green",
                 "caught_fleeing": "bold green", "failed": "bold red",
                 "target_escaped": "bold yellow", "halted": "bold yellow",
                 "ran_down": "bold green",
                 "impossible": "bold red", None: "bold"}


def print_ruling(ruling: dict) -> None:
    for c in ruling["charges"]:
        outcome = c["outcome"] or f"odds {charges.format_chance(c['odds'])}"
        title = f"{c['charger']} -> {c['target']}: {outcome.upper().replace('_', ' ')}"
        body = "\n".join(c["explanation"])
        out.print(Panel(body, title=title, title_align="left",
                        border_style=OUTCOME_STYLE.get(c["outcome"], "bold")))
        figures = Table(show_header=False, box=None, pad_edge=False)
        figures.add_row("facing", c["facing"])
        # From the millimetres, as the explanation rounds it: distance_in is already rounded
        # to 3 places, and 10.165 rounded again would say 10.16 beside its 10.17 in.
        figures.add_row("distance", f'{c["distance_mm"] / 25.4:.2f} in '
                                    f'({c["distance_mm"]:.1f} mm)')
        figures.add_row("needed / odds", f'{c["needed_in"]} on {c["dice_rule"]} / '
                                         + charges.format_chance(c["odds"]))
        if c["range_in"] is not None:
            figures.add_row("range", f'{c["range_in"]:g} in')
        if c["contact"]:
            figures.add_row("models in contact",
                            f'{c["contact"]["charger_models"]} + '
                            f'{c["contact"]["target_models"]}')
        if c["final"]:
            f = c["final"]
            figures.add_row("final pose", f'x {f["x"]:.1f}  y {f["y"]:.1f}  facing '
                                          f'{f["facing"]:.2f}')
        figures.add_row("margin", f'{c["margin_mm"]:.1f} mm'
                        + ("" if c["certain"] else "  (too close to call)"))
        out.print(figures)


@app.command()
def charge(
    scene: Annotated[Path, typer.Argument(help="Scene JSON file.")],
    charger: Annotated[list[str], typer.Option("--charger", help="Charging unit (repeat for "
                                               "a multiple charge).")],
    target: Annotated[str, typer.Option("--target", help="Charged unit.")],
    dice: Annotated[list[str] | None, typer.Option("--dice", help="Roll, e.g. knights=3,5 "
                                                   "(repeat per charger).")] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", help="t9a-1, tow or whfb8.")] = "t9a-1",
    facing_roll: Annotated[list[str] | None, typer.Option(
        "--facing-roll", help="A D6 deciding a contested facing (whfb8), e.g. knights=4 "
        "(repeat per charger).")] = None,
    flee: Annotated[list[str] | None, typer.Option(
        "--flee", help="The charged unit flees (tow, whfb8) with this roll, e.g. "
        "spears=2,3.")] = None,
    on_accidental_contact: Annotated[str | None, typer.Option(
        "--on-accidental-contact", help="tow: halt (default) or continue when a fleeing "
        "enemy stands across the only way.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ruling JSON.")] = False,
) -> None:
    """Rule on a declared charge in a scene."""
    data = read_json(scene, "scene file")
    request: dict = {"ruleset": ruleset, "scene": data,
                     "charges": [{"charger": c, "target": target} for c in charger]}
    if dice:
        request["dice"] = parse_dice(dice)
    if facing_roll:
        rolls = parse_dice(facing_roll, "--facing-roll")
        bad = [k for k, v in rolls.items() if len(v) != 1]
        if bad:
            raise InputError(f"--facing-roll {bad[0]}: one die, e.g. {bad[0]}=4")
        request["facing_roll"] = {k: v[0] for k, v in rolls.items()}
    if flee:
        request["flee"] = parse_dice(flee, "--flee")
    if on_accidental_contact is not None:
        request["on_accidental_contact"] = on_accidental_contact
    ruling = charges.rule(request)
    # What the ruling ignored (a misspelt scene field, an option the ruleset has no use for),
    # on stderr: the JSON on stdout stays what charges.rule returns.
    for w in ruling.get("warnings") or request_warnings(request):
        err.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    if as_json:
        out.print_json(json.dumps(ruling))
    else:
        print_ruling(ruling)


@app.command()
def odds(
    advance: Annotated[float, typer.Option("--advance", help="Advance rate (inches).")],
    distance: Annotated[float, typer.Option("--distance", help="What the roll must cover "
                                            "(inches): the closest distance, or the paid path "
                                            "in tow.")],
    ruleset: Annotated[str, typer.Option("--ruleset")] = "t9a-1",
    swiftstride: Annotated[bool, typer.Option("--swiftstride")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The roll a charge needs and its exact chance."""
    rep = charges.odds(advance, distance, swiftstride, ruleset)
    if as_json:
        out.print_json(json.dumps(rep.to_json()))
        return
    movement = charges.get_ruleset(rep.ruleset).words["movement"]
    out.print(f"Charge of {distance:g} in with {movement} {advance:g} in: needs {rep.needed} or "
              f"more on {rep.dice}: [bold]{charges.format_chance(rep.odds)}[/]")
