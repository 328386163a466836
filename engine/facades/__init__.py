"""The exact interfaces of the specifications: thin translations over :class:`engine.Engine`.

The kernel's top level: imports engine.core, engine.play and what they are made of.
"""
