"""The SDK's version (the Cube release it ships with)."""
__version__ = "0.1.0"
