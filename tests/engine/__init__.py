"""Engine tests: they import no case (tests/conftest.py gets the trees of the default
case by name, as the command line does)."""
