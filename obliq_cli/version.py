"""obliq's version, in a module of its own so that modules the package imports
(model, the runner) can read it without importing the package back."""

__version__ = "0.1.0"
