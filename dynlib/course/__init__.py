"""Teaching tools: figures and animations, interactive explorers, listings of library source, and
the feedback of exercise check cells.

Chapter: every chapter and exercise page.
"""

from . import checks, exercises, listing, plotting, widgets
from .checks import *  # noqa: F403
from .exercises import *  # noqa: F403
from .listing import *  # noqa: F403
from .plotting import *  # noqa: F403
from .widgets import *  # noqa: F403

# every public name is listed once, in its module's __all__
__all__ = [
    *checks.__all__, *listing.__all__, *exercises.__all__, *plotting.__all__, *widgets.__all__,
]
