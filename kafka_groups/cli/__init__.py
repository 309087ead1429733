"""Command-line entry points (Typer). Commands parse, call the core, hand results to a renderer."""
