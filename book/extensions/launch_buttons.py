"""Sphinx extension: Binder launch buttons for the repository the book is built from.

A reader with a network can open any chapter or exercise page as a live notebook on
mybinder.org, which installs the project from ``requirements.txt``.  The address comes from
the ``origin`` remote of the clone being built (``git remote get-url origin``), so a book built
from the public repository links to it and a fork links to the fork.  A clone with no GitHub
origin gets no launch buttons, never buttons that open someone else's repository (Jupyter
Book's default ``repository_url``).  The student book (``make student``) sets
``dynlib_launch_buttons: false``: its pages must not link to the repository's solved notebooks.
"""

import re
import subprocess

BINDER = "https://mybinder.org"
_GITHUB = re.compile(r"(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([\w.-]+)/([\w.-]+?)(?:\.git)?/?")


def github_url(remote):
    """``https://github.com/owner/name`` for a GitHub remote address (https or ssh), else None."""
    match = _GITHUB.fullmatch(remote.strip())
    return f"https://github.com/{match[1]}/{match[2]}" if match else None


def _git(root, *args):
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _configure(app, config):
    options = config.html_theme_options
    launch = dict(options.get("launch_buttons", {}))
    wanted = getattr(config, "dynlib_launch_buttons", True)
    url = github_url(_git(app.srcdir, "remote", "get-url", "origin")) if wanted else None
    if url:
        options["repository_url"] = url
        options["repository_branch"] = _git(app.srcdir, "rev-parse", "--abbrev-ref", "HEAD") or "main"
        options["use_repository_button"] = True
        launch["binderhub_url"] = BINDER
    else:
        launch["binderhub_url"] = ""
        options["use_repository_button"] = False
        options.pop("repository_url", None)
    options["launch_buttons"] = launch


def setup(app):
    app.add_config_value("dynlib_launch_buttons", True, "env")
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
