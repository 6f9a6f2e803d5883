"""The cyclic garbage collector while a process starts (pure: the standard library only).

Start-up (settings, every app's models, admin and job kinds) makes several hundred thousand objects that
live as long as the process. The cyclic collector goes over them again and again while they are made, and
every full collection after start-up goes over them again, the last one at exit: together about a third
of a ``migrate`` with nothing to do.

``pause()``, first thing in ``manage.py``, ``config/wsgi.py`` and ``config/asgi.py``, turns the collector
off; ``resume()``, at the end of ``django.setup()`` (the ready() of the last installed app,
``config.apps.StartupConfig``), freezes what start-up made (``gc.freeze``: moved to a generation no
collection visits, as Python's documentation advises before forking workers) and turns the collector on
again. ``resume()`` does nothing unless ``pause()`` turned the collector off, so a process that set it
itself (``core.jsonl.gc_paused``, a test) keeps its setting.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the cyclic garbage collector off until ``resume()`` (nothing if it is off already)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze the objects made so far and turn the collector on again, if ``pause()`` turned it off."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
