from django.apps import AppConfig

from core import startup_gc


class StartupConfig(AppConfig):
    """The last installed app: its ready() ends ``django.setup()``, and with it start-up's pause of the
    garbage collector (``core.startup_gc``)."""

    name = "config"
    label = "startup"
    verbose_name = "Start-up"

    def ready(self) -> None:
        startup_gc.resume()
