"""Outputs written atomically and all or nothing, after checks that every target can be written."""

import os
import sys
import tempfile

from ._messages import (
    CLIError,
    MSG_CANNOT_WRITE,
    MSG_OUTPUTS_SAME,
    MSG_OUTPUTS_STDOUT,
    MSG_OUTPUT_FOLDER,
    MSG_OUTPUT_FOLDER_READ_ONLY,
    MSG_OUTPUT_NO_FOLDER,
    MSG_OUTPUT_READ_ONLY,
)


def _reason(exc):
    return (exc.strerror or str(exc)).rstrip(".").lower() if exc.strerror else str(exc)


def same_file(output, inputs):
    """True when ``output`` names one of the ``inputs`` (after links and ``..``)."""
    if output in (None, "-"):
        return False
    target = os.path.realpath(output)
    for path in inputs:
        if path in (None, "-"):
            continue
        if os.path.realpath(path) == target:
            return True
        try:
            if os.path.samefile(path, output):
                return True
        except OSError:
            pass
    return False


def is_read_only(path):
    """True when ``path`` is a regular file that its mode or the system says not to write.

    The mode is read as well as ``os.access``: an administrator may write any
    file, but a file made read-only (``chmod a-w``, or a file of ``/proc``)
    is still not to be replaced.
    """
    try:
        st = os.stat(path)
    except OSError:
        return False
    import stat

    if not stat.S_ISREG(st.st_mode):
        return False
    return (st.st_mode & 0o222) == 0 or not os.access(path, os.W_OK)


def folder_writable(folder):
    """True when a new file can be made in ``folder`` (write and search permission)."""
    return os.access(folder, os.W_OK | os.X_OK)


def check_output(path):
    """Raise a CLIError naming ``path`` or its folder when ``path`` cannot be written.

    Standard output (None or ``"-"``) and existing non-regular files (devices,
    pipes) are written directly and pass. Otherwise ``path`` must not be a
    folder, its folder must exist and be writable (the output is written to
    a temporary file beside it), and an existing file must not be read-only.
    """
    if path is None or path == "-":
        return
    if os.path.isdir(path):
        raise CLIError(MSG_OUTPUT_FOLDER.format(path=path))
    if os.path.exists(path) and not os.path.isfile(path):
        return  # a device or a pipe, written directly
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CLIError(MSG_OUTPUT_NO_FOLDER.format(path=path, folder=folder))
    if is_read_only(path):
        mode = oct(os.stat(path).st_mode & 0o777)[2:]
        raise CLIError(MSG_OUTPUT_READ_ONLY.format(path=path, mode=mode))
    if not folder_writable(folder):
        raise CLIError(MSG_OUTPUT_FOLDER_READ_ONLY.format(path=path, folder=folder))


def check_outputs(outputs):
    """Refuse outputs of one command that would overwrite each other.

    ``outputs``: list of ``(option, path)``; a path of None or ``"-"`` is
    standard output. Two outputs naming one file (after links and ``..``),
    or more than one on standard output, raise a CLIError (a problem of the
    command line); each path alone is checked by :func:`check_output`.
    """
    to_stdout = [option for option, path in outputs if path in (None, "-")]
    if len(to_stdout) > 1:
        raise CLIError(MSG_OUTPUTS_STDOUT.format(options=" and ".join(to_stdout)))
    seen = {}
    for option, path in outputs:
        if path in (None, "-"):
            continue
        key = os.path.realpath(path)
        for other_option, other in seen.items():
            if key == other[0] or same_file(path, [other[1]]):
                raise CLIError(MSG_OUTPUTS_SAME.format(first=other_option, second=option,
                                                       path=path))
        seen[option] = (key, path)


class StagedOutputs:
    """The outputs of one command, made complete before any is put in place.

    :func:`write_text` inside :func:`staged_outputs` calls :meth:`add`: a
    regular file is written to a temporary file in its folder, a device or
    standard output is kept in memory. :meth:`commit` then writes the
    devices, renames every temporary file over its target, and writes
    standard output last; :meth:`discard` removes the temporary files.
    ``done`` lists the targets already replaced, for the message of an
    interruption.
    """

    def __init__(self):
        self.staged = []  # (kind, path, payload): "file" (tmp), "direct" or "stdout" (text)
        self.targets = []  # every file output, in the order of the command
        self.done = []

    def add(self, path, text, stdout=None):
        if path is None or path == "-":
            self.staged.append(("stdout", stdout, text))
            return
        check_output(path)
        self.targets.append(path)
        if os.path.exists(path) and not os.path.isfile(path):
            self.staged.append(("direct", path, text))
            return
        self.staged.append(("file", path, _temporary(path, text.encode("utf-8"))))

    def commit(self):
        order = {"direct": 0, "file": 1, "stdout": 2}
        for kind, path, payload in sorted(self.staged, key=lambda item: order[item[0]]):
            if kind == "stdout":
                _write_stdout(payload, path)
                continue
            try:
                if kind == "direct":
                    with open(path, "wb") as handle:
                        handle.write(payload.encode("utf-8"))
                else:
                    os.replace(payload, path)
            except OSError as exc:
                raise CLIError(MSG_CANNOT_WRITE.format(path=path, reason=_reason(exc))
                               + self.changed_sentence()) from None
            self.done.append(path)
        self.staged = []

    def discard(self):
        for kind, _, payload in self.staged:
            if kind == "file":
                try:
                    os.unlink(payload)
                except OSError:
                    pass
        self.staged = []

    def changed_sentence(self):
        """What the command changed, as a sentence that begins with a space."""
        if not self.done:
            return " No output file was changed."
        left = [path for path in self.targets if path not in self.done]
        return (f" Written: {', '.join(self.done)}"
                + (f"; not changed: {', '.join(left)}." if left else "."))


_STAGE = []  # the StagedOutputs of the running command, if any


class staged_outputs:
    """Context manager: the :func:`write_text` calls inside it are staged, then committed.

    On leaving normally every output is put in place (:meth:`StagedOutputs.commit`); on an
    exception the temporary files are removed. The object is the ``StagedOutputs``.
    """

    def __enter__(self):
        self.stage = StagedOutputs()
        _STAGE.append(self.stage)
        return self.stage

    def __exit__(self, kind, exc, tb):
        _STAGE.remove(self.stage)
        try:
            if kind is None:
                self.stage.commit()
        finally:
            self.stage.discard()
        return False


def _write_stdout(text, stdout=None):
    out = sys.stdout if stdout is None else stdout
    out.write(text)
    out.flush()


def _temporary(path, data):
    """``data`` in a new temporary file beside ``path``, with ``path``'s mode; its name."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else None
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                   dir=folder)
    except OSError as exc:
        reason = f"no temporary file can be made in its folder {folder} ({_reason(exc)})"
        raise CLIError(MSG_CANNOT_WRITE.format(path=path, reason=reason)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise CLIError(MSG_CANNOT_WRITE.format(path=path, reason=_reason(exc))) from None
        raise
    return tmp


def write_text(path, text, *, stdout=None):
    """Write ``text`` to ``path`` atomically (standard output for None or ``"-"``).

    Regular files (and new files) are written to a temporary file in the same
    folder, flushed to disk and renamed over ``path``; on any failure the
    temporary file is removed and ``path`` is left as it was. A ``path`` that
    exists and is not a regular file (a device such as ``/dev/full``, a pipe)
    is written directly. A read-only file, a folder, a missing or read-only
    folder are refused (:func:`check_output`). Inside :func:`staged_outputs`
    the write is only staged, and happens with the command's other outputs.
    Every failure is a :class:`CLIError` of one line.
    """
    stage = StagedOutputs() if not _STAGE else _STAGE[-1]
    stage.add(path, text, stdout)
    if not _STAGE:
        try:
            stage.commit()
        finally:
            stage.discard()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
