"""Scene model and pure geometry for the charge umpire (DESIGN.md, ``geometry/``).

Millimetres and degrees; poses are boundary centres with a facing; one tolerance, ``EPS_MM``.
"""

from .arcs import arc_polygons, arc_shares, arcs_of_point, in_front_arc
from .constants import EPS_MM, MM_PER_INCH, OVERLAY_GRID_MM, in_to_mm, mm_to_in
from .contact import (
    FlushContact,
    ModelContacts,
    bodies_overlap,
    flush_contact,
    models_in_contact,
    overlapping,
    penetration_mm,
    touching,
)
from .distance import Closest, closest
from .formation import (
    FACINGS,
    Body,
    FacingName,
    Formation,
    base_polygon,
    boundary,
    corners,
    facing_normal,
    facing_segments,
    front_files,
    model_bases,
    polygon_of,
    presented_models,
)
from .moves import (
    Align,
    Forward,
    Reform,
    Step,
    Turn,
    Wheel,
    align,
    forward,
    path_length_mm,
    replay,
    step_from_json,
    step_to_json,
    turn,
    wheel,
)
from .pose import Pose, normalize_deg, rotate_point
from .scene import Scene, SceneError, Table, Terrain, Unit, load_scene
from .sweep import rotation_bounds, rotation_sweep, rotation_sweep_parts, translation_sweep

__all__ = [
    "EPS_MM", "MM_PER_INCH", "OVERLAY_GRID_MM", "in_to_mm", "mm_to_in", "Pose", "normalize_deg",
    "rotate_point",
    "Formation", "Body", "FacingName", "FACINGS", "boundary", "corners", "facing_segments",
    "facing_normal", "model_bases", "base_polygon", "polygon_of", "presented_models",
    "front_files",
    "arc_polygons",
    "arc_shares", "arcs_of_point", "in_front_arc", "Closest", "closest", "touching",
    "overlapping", "penetration_mm", "bodies_overlap", "FlushContact", "flush_contact",
    "ModelContacts", "models_in_contact", "Forward", "Wheel", "Align", "Turn", "Reform", "Step",
    "forward", "wheel", "align", "turn", "replay", "path_length_mm", "step_to_json",
    "step_from_json", "rotation_bounds", "rotation_sweep", "rotation_sweep_parts",
    "translation_sweep", "Scene", "SceneError", "Table", "Terrain", "Unit", "load_scene",
]

# Hex-grid geometry for the hex-and-counter rulesets (HEX.md 3), one import for ``charges.hex``.
from . import hexfacing, hexgrid  # noqa: E402
from .hexfacing import (  # noqa: E402
    FACING_MODELS,
    aspects,
    delta,
    facing_fits,
    front_sides,
    in_front_sector,
    line_axis,
    line_facings,
    side_aspect,
)
from .hexgrid import (  # noqa: E402
    DIRS,
    Hex,
    HexLine,
    LabelOrigin,
    calibrate_labels,
    direction,
    hex_line,
    hexside_id,
    neighbours,
    to_pixel,
)
from .hexgrid import distance as hex_distance  # noqa: E402

__all__ += [
    "hexgrid", "hexfacing", "FACING_MODELS", "aspects", "delta", "facing_fits", "front_sides",
    "in_front_sector", "line_axis", "line_facings", "side_aspect", "DIRS", "Hex", "HexLine",
    "LabelOrigin", "calibrate_labels", "direction", "hex_line", "hexside_id", "neighbours",
    "to_pixel", "hex_distance",
]
