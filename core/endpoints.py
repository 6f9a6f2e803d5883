"""Showing a service URL without its secrets. Pure (no Django)."""

from __future__ import annotations

from urllib.parse import urlsplit


def endpoint_label(url: str) -> str:
    """Scheme, host, port and path of a URL; never a user name, password or query string.

    The path of a ``filesystem://`` broker URL is left out (it is a local folder, not an address).
    """
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    path = "" if parts.scheme == "filesystem" else parts.path.rstrip("/")
    return f"{parts.scheme}://{host}{path}"
