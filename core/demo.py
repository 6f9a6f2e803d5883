"""The demo data set loaded by `make run`: accounts here, the apps' own parts registered by them.

Each part is loaded once per database (recorded in ``DemoLoad``). Demo accounts get random
passwords, kept in ``var/demo-accounts.json`` (readable by the owner only) so every
`make run` can print them again.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from core.models import DemoLoad
from core.roles import ADMIN, ANNOTATOR, RESEARCHER


@dataclass(frozen=True)
class DemoAccount:
    username: str
    role: str
    groups: tuple[str, ...] = ()  # groups beyond the role's, e.g. "reviewer" (the flag review permission)


DEMO_ACCOUNTS = [
    DemoAccount("admin", ADMIN),
    DemoAccount("researcher", RESEARCHER),
    DemoAccount("reviewer", RESEARCHER, groups=("reviewer",)),  # a researcher who reviews quality flags
    DemoAccount("annotator1", ANNOTATOR),
    DemoAccount("annotator2", ANNOTATOR),
]


@dataclass(frozen=True)
class DemoPart:
    name: str
    order: int
    load: Callable[[], str]  # returns a one-line summary


_PARTS: dict[str, DemoPart] = {}


def register_demo_part(name: str, load: Callable[[], str], *, order: int = 100) -> None:
    _PARTS[name] = DemoPart(name, order, load)


def credentials_path() -> Path:
    return Path(settings.VAR_DIR) / "demo-accounts.json"


def _read_credentials() -> dict[str, str]:
    path = credentials_path()
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_credentials(credentials: dict[str, str]) -> None:
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(credentials, handle, indent=2)


def ensure_demo_accounts() -> list[tuple[DemoAccount, str]]:
    """Create the demo accounts if missing; give each a password known to the credentials file."""
    user_model = get_user_model()
    credentials = _read_credentials()
    changed = False
    result = []
    with transaction.atomic():
        for account in DEMO_ACCOUNTS:
            user, created = user_model.objects.get_or_create(username=account.username)
            password = credentials.get(account.username)
            if created or not password or not user.check_password(password):
                password = secrets.token_urlsafe(9)
                user.set_password(password)
                credentials[account.username] = password
                changed = True
            user.is_staff = user.is_superuser = account.role == ADMIN
            user.save()
            if account.role != ADMIN:
                user.groups.add(Group.objects.get_or_create(name=account.role)[0])
            for name in account.groups:  # made by a migration with its permissions; get_or_create for a bare test DB
                user.groups.add(Group.objects.get_or_create(name=name)[0])
            result.append((account, password))
    if changed:
        _write_credentials(credentials)
    return result


def load_parts(*, reload: bool = False) -> list[tuple[str, str]]:
    """Load every registered part not loaded yet; returns (part, summary) for each one loaded now."""
    loaded = []
    for part in sorted(_PARTS.values(), key=lambda p: (p.order, p.name)):
        with transaction.atomic():
            existing = DemoLoad.objects.select_for_update().filter(part=part.name).first()
            if existing and not reload:
                continue
            summary = part.load()
            DemoLoad.objects.update_or_create(part=part.name, defaults={"summary": summary[:255]})
        loaded.append((part.name, summary))
    return loaded
