"""The exact interfaces of the specifications, as thin translations over :class:`engine.core.Engine`."""
