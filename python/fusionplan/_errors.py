class Error(Exception):
    """A failure reported by the library: str(e) is its one-line message,
    e.status the lf_status code (negative)."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.message = message
        self.status = status
