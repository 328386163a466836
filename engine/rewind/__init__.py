"""Rewind: the undo journal the parts write to, its restore points and keyframes, and undoable
containers.

Owns no engine state of its own; imports only engine.model.
"""
