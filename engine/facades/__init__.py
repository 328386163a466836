"""The exact interfaces of the specifications: thin translations over :class:`engine.Engine`."""
