"""The run loop: the ringmaster and its slots, executors (where games are played), one game as
a function of its job (match, referee), engine supervision, the events a run emits."""
