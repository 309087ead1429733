"""The commands as typed requests and the code that carries them out.

Both command-line forms build these requests: the Typer subcommands from their options, the
Apache flag form by translation (without loading Typer, which keeps scripts fast). A request's
``execute`` resolves the connection settings, calls the Kafka access layer and the pure core,
and hands the result to the renderer. Nothing here imports a Kafka client at module level.
"""
