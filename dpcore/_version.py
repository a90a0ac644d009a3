"""The package version (a leaf module: the package face and the command line read it)."""

__version__ = "0.2.0"
