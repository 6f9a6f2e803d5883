from tests.annotation.audits.fake_source import audit_of, fake_source  # noqa: F401 - fixtures of the audit tests
