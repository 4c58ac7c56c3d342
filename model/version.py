"""The package version, kept here so that every layer can name it without importing a surface."""

__version__ = "0.1.0"
