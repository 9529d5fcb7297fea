"""Sphinx extension: drop repeated inline scripts from each page.

sphinx-thebe (loaded by Jupyter Book 1) adds its configuration script once per build pass, so
pages get ``const THEBE_JS_URL = ...`` twice and the browser reports "Identifier
'THEBE_JS_URL' has already been declared".  Keep the first copy of each script.
"""


def _unique_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for script in context.get("script_files", []):
        body = getattr(script, "attributes", {}).get("body")
        key = ("body", body) if body else ("file", str(script))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _unique_scripts, priority=900)  # after the theme's handlers
    return {"parallel_read_safe": True, "parallel_write_safe": True}
