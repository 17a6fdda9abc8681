import pantry


def test_the_package_imports():
    assert pantry.__doc__
