"""cronlapse's terminal dashboard (Textual). It reads the engine and sends it commands; the engine
never imports it. Start it with ``cronlapse tui FILE`` (or ``python -m cronlapse tui FILE``)."""
