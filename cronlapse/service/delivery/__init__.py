"""Real notification delivery: the engine's outbox says what is due, this package sends it.

``channels`` reads the config's channels; ``keys`` derives each notification's idempotency key
and what it says; ``webhook``, ``slack`` and ``email`` each make one delivery try; ``worker``
runs the tries (email on a queue of its own) and reports each one's end as a journaled input.
"""
