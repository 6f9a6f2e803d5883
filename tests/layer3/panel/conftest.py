from tests.layer3.calibration_fixture import calibration  # noqa: F401 - annotation's calibration reports, faked
