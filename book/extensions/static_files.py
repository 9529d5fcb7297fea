"""Helper for the book's extensions: serve a folder of an extension as ``_static`` files."""


def serve_folder(app, folder):
    """Add ``folder`` to ``html_static_path`` once the configuration is read."""

    def add(app, config):
        if str(folder) not in map(str, config.html_static_path):
            config.html_static_path.append(str(folder))

    app.connect("config-inited", add)
