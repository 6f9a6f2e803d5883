"""Quality checks (pure): consistency rules over the seed's B.1 markers and outlier detection; the flags
they raise are stored by ``annotation.services``."""
