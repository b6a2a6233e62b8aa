"""The charge-move search's stages in one namespace, for the tests that probe them (the
engine keeps them in modules by stage: charges/facing_frame.py, candidates.py, first_pass.py,
exact_check.py, plan.py, refine.py, charge_move.py, search.py)."""

from charges.candidates import (  # noqa: F401
    _COLUMNS,
    _SLOT_FAMILY,
    FAMILIES,
    Candidate,
    CandidateTable,
    Family,
    _angle_terms,
    _forward_solution,
    _path_distances,
    _solve_forward_wheel_forward,
    _wrap,
    candidate_at,
    candidate_table,
    candidates_at,
)
from charges.charge_move import (  # noqa: F401
    ChargeMove,
    Rejected,
    _describe_block,
    _finish,
)
from charges.exact_check import (  # noqa: F401
    ALIGN_OUTSIDE_TARGET,
    Attempt,
    check_candidate,
)
from charges.facing_frame import (  # noqa: F401
    EPS,
    INTERIOR_INSET_MM,
    T9A_MOVES,
    THETA_GRID_DEG,
    FacingFrame,
    Group,
    MoveRules,
    _default_group_key,
    _flush_centres,
    _flush_corners,
    contact_counts,
    contact_counts_many,
    contact_matrix,
    facing_frame,
    flush_pose,
    group_offsets,
    offset_breakpoints,
    offset_candidates,
    offset_interval,
    straight_offsets,
)
from charges.first_pass import (  # noqa: F401
    ALIGN_SAMPLES,
    PREFILTER_CHUNKS,
    WHEEL_SAMPLES,
    FirstMove,
    _chunks,
    arrival_clear,
    first_move,
    path_prefilter,
)
from charges.plan import (  # noqa: F401
    SearchMemo,
    SearchPlan,
)
from charges.refine import (  # noqa: F401
    BISECT_STEPS,
    POLISH_TOL_MM,
    REFINE_RIVALS,
    TURN_RESOLUTION_DEG,
    _best_refined,
    _kinds,
    _least_turn,
    _polish,
    polish_move,
)
from charges.search import (  # noqa: F401
    TargetWorld,
    _first_legal,
    _rotated,
    legal_move_exists,
    moves_aside,
    search_charge,
    search_moves,
    shortest_move,
)
