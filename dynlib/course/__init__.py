"""Teaching tools: figures and animations, interactive explorers, listings of library source, and
the feedback of exercise check cells.

Chapter: every chapter and exercise page.
"""

from .checks import exactly_zero, relative_close
from .exercises import (
    ExerciseFeedback,
    Fingerprint,
    Fingerprints,
    answered,
    check_answer,
    check_function,
    check_property,
)
from .listing import show_source, source_without_docstrings
from .plotting import (
    Player,
    animate_motion,
    animation_html,
    draw_frame,
    draw_planar_line,
    draw_screw_axis,
    draw_tree,
    draw_vectors,
    joint_positions,
    set_axes_equal,
    show_terms,
    use_book_style,
)
from .widgets import (
    articulated_inertia_explorer,
    draw_apparent_mass,
    draw_impact,
    draw_strike,
    draw_twist,
    impact_explorer,
    pinned_strike,
    strike_explorer,
    twist_explorer,
    twist_field,
)

__all__ = [
    "relative_close",
    "exactly_zero",
    "show_source",
    "source_without_docstrings",
    "show_terms",
    "ExerciseFeedback",
    "Fingerprint",
    "Fingerprints",
    "answered",
    "check_function",
    "check_answer",
    "check_property",
    "use_book_style",
    "set_axes_equal",
    "draw_frame",
    "joint_positions",
    "draw_tree",
    "draw_planar_line",
    "draw_screw_axis",
    "draw_vectors",
    "animation_html",
    "animate_motion",
    "Player",
    "twist_field",
    "draw_twist",
    "twist_explorer",
    "pinned_strike",
    "draw_strike",
    "strike_explorer",
    "draw_impact",
    "impact_explorer",
    "draw_apparent_mass",
    "articulated_inertia_explorer",
]
