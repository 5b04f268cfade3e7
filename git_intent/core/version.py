"""The package's version, in a module of its own so that any layer can read it without importing the package's
façade (`git_intent/__init__.py`), which sits above every layer."""

__version__ = "0.1.0"
