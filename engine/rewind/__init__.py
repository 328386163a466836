"""Rewind: keyframes of the engine's live state, what the parts declare and call for them, and
the containers they copy.

Owns no engine state of its own; imports only engine.model.
"""
