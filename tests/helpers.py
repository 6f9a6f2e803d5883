"""Helpers shared by tests (imported by test modules, after Django is set up)."""

from django.contrib.auth.models import Group, User

PASSWORD = "pw-for-tests-1"


def make_user(username: str, *roles: str, staff: bool = False, password: str = PASSWORD) -> User:
    user = User.objects.create_user(username=username, password=password, is_staff=staff, is_superuser=staff)
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def make_qualified_annotator(username: str, password: str = PASSWORD) -> User:
    """An annotator who has passed the qualification test (so the production queue is open)."""
    from django.utils import timezone

    from annotation.models import QualificationAttempt

    user = make_user(username, "annotator", password=password)
    QualificationAttempt.objects.create(
        annotator=user,
        finished_at=timezone.now(),
        passed=True,
        kappas=dict.fromkeys(("social", "avoidant", "mechanical", "self"), 1.0),
    )
    return user


def acknowledge_audit_guidelines(user, kinds=("gv", "w2wr")) -> None:
    """The rater has read the judge audits' guidelines of ``kinds`` (so their audit pages open)."""
    from annotation.models import AuditGuidelinesRead

    for kind in kinds:
        AuditGuidelinesRead.objects.get_or_create(annotator=user, kind=kind)
