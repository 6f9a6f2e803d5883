"""Helpers shared by tests (imported by test modules, after Django is set up)."""

from django.contrib.auth.models import Group, User

PASSWORD = "pw-for-tests-1"


def make_user(username: str, *roles: str, staff: bool = False, password: str = PASSWORD) -> User:
    user = User.objects.create_user(username=username, password=password, is_staff=staff, is_superuser=staff)
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user
