"""``umpire hex ...``: the hex-and-counter rulings on the command line (HEX.md 13-14).

Each command reads a position (HEX.md 4), loads the rules data (``--rules-data F``, else the
file the position names, relative to the position), calls ``charges.hex_rule`` and prints the
ruling (``--json``: the ruling JSON). Every decision of HEX.md is an option: ``--option
halve_rounding=up`` (repeatable). Bad input exits 2 with the field and the code on stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

import charges
from server.cli import InputError, app, out, read_json

hex_app = typer.Typer(add_completion=False, no_args_is_help=True,
                      help="Rule on hex-and-counter positions (Musket & Pike, La Bataille).")
app.add_typer(hex_app, name="hex")

RulesData = Annotated[Path | None, typer.Option("--rules-data", help="Rules-data JSON (the "
                                                "game's tables, supplied by you).")]
Options = Annotated[list[str] | None, typer.Option("--option", help="A ruleset option, e.g. "
                                                   "halve_rounding=up (repeatable).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the ruling JSON.")]
FixWagons = Annotated[bool, typer.Option("--fix-wagons", help="Put wagons under the other "
                                         "units of their hex (8.5) instead of refusing.")]
PositionArg = Annotated[Path, typer.Argument(help="Position JSON (umpire.hex-position/1).")]


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _options(items: list[str] | None) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--option {item!r}: write it as NAME=VALUE (e.g. "
                             f"halve_rounding=up)")
        opts[key.strip()] = _value(value.strip())
    return opts


def _load(position: Path, rules_data: Path | None) -> tuple[dict, dict | None]:
    pos = read_json(position, "position")
    if not isinstance(pos, dict):
        raise InputError(f"position {position}: must be a JSON object")
    if rules_data is not None:
        return pos, read_json(rules_data, "rules data")
    ref = pos.get("rules_data")
    if isinstance(ref, str):
        return pos, read_json(position.parent / ref, "rules data named by the position")
    return pos, None


def rule(kind: str, position: Path, rules_data: Path | None, options: list[str] | None,
         as_json: bool, fix_wagons: bool = False, **params: Any) -> dict:
    """Load, rule, print; the ruling is returned for callers in Python."""
    pos, data = _load(position, rules_data)
    extra = _options(options)
    if fix_wagons:
        extra["fix_wagons"] = True
    ruling = charges.hex_rule(kind, pos, rules_data=data,
                              **{k: v for k, v in params.items() if v is not None}, **extra)
    if as_json:
        sys.stdout.write(json.dumps(ruling, indent=2, ensure_ascii=False) + "\n")
    else:
        print_ruling(ruling)
    return ruling


def print_ruling(r: dict) -> None:
    verdict = "LEGAL" if r["legal"] else "NOT LEGAL"
    if not r.get("complete", True):
        verdict += " (incomplete: rules data missing)"
    out.print(f"[bold]{r['ruling']}[/] ({r['ruleset']}): [bold]{verdict}[/]", highlight=False)
    for sentence in r["explanation"]:
        out.print(f"  {sentence}", highlight=False)
    if r.get("items"):
        table = Table(show_header=True, box=None)
        for col in ("slot", "rule", "value"):
            table.add_column(col)
        for item in r["items"]:
            table.add_row(item["slot"], item["rule"], str(item["value"]))
        table.add_row("[bold]net[/]", "11.3.1", f"[bold]{r['net']}[/]")
        out.print(table)
    for reason in r["reasons"]:
        mark = "refused" if reason.get("refuses") else "note"
        out.print(f"  {mark}: {reason['code']} ({reason['rule']}): {reason['message']}",
                  highlight=False)
    if r["decisions"]:
        out.print(f"  decisions relied on: {', '.join(r['decisions'])}", highlight=False)


@hex_app.command()
def combat(
    position: PositionArg,
    defender: Annotated[str, typer.Option("--defender", help="The defending unit.")],
    attacker: Annotated[list[str] | None, typer.Option("--attacker", help="An attacking unit "
                                                       "(repeat; default: every enemy with "
                                                       "the defender in its front).")] = None,
    pistol: Annotated[list[str] | None, typer.Option("--pistol", help="A cavalry unit that "
                                                     "expends its pistol (repeat).")] = None,
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
    fix_wagons: FixWagons = False,
) -> None:
    """Musket & Pike close combat: every modifier with its rule, the odds and the net."""
    rule("combat", position, rules_data, option, as_json, fix_wagons, defender=defender,
         attackers=attacker or None, pistols=pistol or None)


@hex_app.command()
def assault(
    position: PositionArg,
    unit: Annotated[list[str], typer.Option("--assault", help="An assaulting unit (repeat).")],
    target: Annotated[list[str], typer.Option("--target", help="A target: unit id or Q,R "
                                              "(repeat for two targets).")],
    join: Annotated[list[str] | None, typer.Option("--join", help="A unit joining the "
                                                   "assaulting stack.")] = None,
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
) -> None:
    """La Bataille assault: declaration checks, approach distance, melee values."""
    rule("assault", position, rules_data, option, as_json, assault=unit, target=target,
         join=join or None)


@hex_app.command()
def reactions(
    position: PositionArg,
    event: Annotated[Path, typer.Option("--event", help="A trigger record (JSON) of HEX.md "
                                        "6.1, or a list of them.")],
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
    fix_wagons: FixWagons = False,
) -> None:
    """Musket & Pike reactions: who may react to the event, how, and why the others not."""
    ev = read_json(event, "event")
    key = "events" if isinstance(ev, list) else "event"
    rule("reactions", position, rules_data, option, as_json, fix_wagons, **{key: ev})


@hex_app.command()
def rally(
    position: PositionArg,
    unit: Annotated[str, typer.Option("--unit", help="The unit rallying.")],
    path: Annotated[list[str] | None, typer.Option("--path", help="A hex entered, Q,R "
                                                   "(repeat in order).")] = None,
    formation_change: Annotated[str | None, typer.Option("--formation-change")] = None,
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
) -> None:
    """La Bataille rally move: allowance, the route it must take, a proposed path checked."""
    rule("rally", position, rules_data, option, as_json, unit=unit, path=path or None,
         formation_change=formation_change)


@hex_app.command()
def cup(
    position: PositionArg,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Simulate the draw with this seed. Without --seed or --order the draw "
        "uses a fresh random seed, printed (and given as the ruling's seed) so that --seed N "
        "replays it.")] = None,
    order: Annotated[str | None, typer.Option("--order", help="Replay: chits in order, "
                                              "comma-separated.")] = None,
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
) -> None:
    """La Bataille chit cup: each draw and what it activates, in order."""
    if seed is not None and order is not None:
        raise InputError("--seed and --order: give one of them, not both")
    if seed is not None and seed < 0:
        raise InputError(f"--seed: must be 0 or more, got {seed}")
    rule("cup", position, rules_data, option, as_json, seed=seed,
         order=[c.strip() for c in order.split(",") if c.strip()] if order else None)


@hex_app.command()
def momentum(
    position: PositionArg,
    unit: Annotated[str, typer.Option("--unit")],
    path: Annotated[list[str], typer.Option("--path", help="A hex entered, Q,R (repeat).")],
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
) -> None:
    """Musket & Pike Momentum from the hexes entered (flags need the JSON API)."""
    rule("momentum", position, rules_data, option, as_json, unit=unit, path=path)


@hex_app.command()
def incorporate(
    position: PositionArg,
    mover: Annotated[str, typer.Option("--mover")],
    absorbed: Annotated[str, typer.Option("--absorbed")],
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
) -> None:
    """Musket & Pike cavalry incorporation."""
    rule("incorporation", position, rules_data, option, as_json, mover=mover,
         absorbed=absorbed)


@hex_app.command("fire-check")
def fire_check(
    position: PositionArg,
    firer: Annotated[str, typer.Option("--firer")],
    target: Annotated[str, typer.Option("--target")],
    segment: Annotated[str, typer.Option("--segment")] = "fire",
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
) -> None:
    """La Bataille: may this unit fire at that one now (assault restrictions)?"""
    rule("fire_check", position, rules_data, option, as_json, firer=firer, target=target,
         segment=segment)


@hex_app.command("rule")
def rule_any(
    kind: Annotated[str, typer.Argument(help="A ruling kind: combat, reactions, momentum, "
                                        "cc_sequence, incorporation, wagons (mpbs); assault, "
                                        "mayhem, rally, cup, fire_check (lb).")],
    position: PositionArg,
    request: Annotated[Path | None, typer.Option("--request", help="JSON object of the "
                                                 "kind's parameters, e.g. {\"designations\": "
                                                 "[...]}.")] = None,
    rules_data: RulesData = None, option: Options = None, as_json: AsJson = False,
    fix_wagons: FixWagons = False,
) -> None:
    """Any hex ruling, its parameters from a JSON file (the Python and HTTP form)."""
    params = read_json(request, "request") if request is not None else {}
    if not isinstance(params, dict):
        raise InputError(f"request {request}: must be a JSON object of parameters")
    rule(kind, position, rules_data, option, as_json, fix_wagons, **params)
