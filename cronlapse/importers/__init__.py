"""Importers: real schedulers' files turned into cronlapse scenarios (``cronlapse import``).

Like the scenario loader, they read files; everything else in ``engine/`` does no I/O.
"""
