"""Request and response bodies of the API: ``XCreate`` in, ``XPublic`` out, lists as
``XsPublic(data, count)``."""
