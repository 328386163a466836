"""Importers: real schedulers' files turned into cronlapse scenarios (``cronlapse import``).

Imports the kernel and its language only; like the scenario loader, they read files.
"""
