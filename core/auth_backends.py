"""The login backend: Django's model backend, loading a user and their roles in one query.

Each request of a logged-in user loads the user; every role check then needs the user's groups.
``get_user`` reads both with one statement (a LEFT JOIN over the role groups) and leaves the roles
on the user object, where ``core.roles.user_roles`` finds them. Authentication itself (password
checks) and permissions are unchanged.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connections, router

from core.db import fetch, instance_from_row
from core.roles import GROUP_ROLES, remember_roles


@cache
def _user_with_roles_sql(alias: str) -> str:
    model = get_user_model()
    quote = connections[alias].ops.quote_name
    fields = model._meta.concrete_fields
    groups_field = model._meta.get_field("groups")
    through = groups_field.remote_field.through._meta
    group = groups_field.remote_field.model._meta
    pk = quote(model._meta.pk.column)
    columns = ", ".join(f"u.{quote(field.column)}" for field in fields)
    roles = ", ".join(["%s"] * len(GROUP_ROLES))
    return (
        f"SELECT {columns}, g.name FROM {quote(model._meta.db_table)} u "  # noqa: S608 - model metadata only
        f"LEFT JOIN {quote(through.db_table)} ug ON ug.{quote(groups_field.m2m_column_name())} = u.{pk} "
        f"LEFT JOIN {quote(group.db_table)} g ON g.{quote(group.pk.column)} = "
        f"ug.{quote(groups_field.m2m_reverse_name())} AND g.name IN ({roles}) "
        f"WHERE u.{pk} = %s"
    )


class RoleLoadingModelBackend(ModelBackend):
    def get_user(self, user_id):
        model = get_user_model()
        alias = router.db_for_read(model)
        rows = fetch(_user_with_roles_sql(alias), [*GROUP_ROLES, user_id], using=alias)
        if not rows:
            return None
        user = instance_from_row(model, rows[0][:-1], using=alias)
        if not self.user_can_authenticate(user):
            return None
        remember_roles(user, {row[-1] for row in rows if row[-1]})
        return user
