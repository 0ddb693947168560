"""Progress reports: the library calls lf_progress_fn(user, stage, done,
total, note) from its planning threads; here they become a Python callback
or a tqdm bar."""
from ._lib import PROGRESS


class _Tqdm:
    def __init__(self):
        import tqdm  # noqa: F401 (only when asked for and installed)
        self._tqdm = tqdm.tqdm
        self.bar = None

    def __call__(self, stage, done, total, note):
        if self.bar is None or self.bar.desc != stage:
            if self.bar is not None:
                self.bar.close()
            self.bar = self._tqdm(total=total if total > 0 else None, desc=stage, leave=False)
        self.bar.n = done
        self.bar.set_postfix_str(note or "", refresh=False)
        self.bar.refresh()

    def close(self):
        if self.bar is not None:
            self.bar.close()


def make(progress):
    """(ctypes callback or None, closer). progress: None or False (no
    reports), True (a tqdm bar when tqdm is installed, else nothing), or a
    callable fn(stage, done, total, note)."""
    if progress is None or progress is False:
        return PROGRESS(), (lambda: None)
    fn = progress
    if progress is True:
        try:
            fn = _Tqdm()
        except ImportError:
            return PROGRESS(), (lambda: None)

    def report(user, stage, done, total, note):
        try:
            fn(stage.decode() if stage else "", done, total, note.decode() if note else "")
        except Exception:  # an exception cannot cross the library; the plan goes on
            pass

    cb = PROGRESS(report)
    return cb, getattr(fn, "close", lambda: None)
