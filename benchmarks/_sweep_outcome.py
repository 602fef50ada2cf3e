"""What a case of the input sweep returns when its check found the output wrong."""


class Wrong(str):
    """A command line's output that its check found wrong: the case is silent."""
