/**
 * The Python side of the check runner: a pristine interpreter that never runs an answer itself, and forks one child
 * per check, as upstream's execution does with multiprocessing. Forking skips the ~20 ms an interpreter takes to
 * start, which over 164 checks is most of the time; every child is still a process of its own that inherits no
 * state of another check.
 *
 * Protocol, one JSON object per line: in, `{"id", "dir", "program", "compiled", "timeout", "memory", "token"}` to
 * run `dir/program` (from its code object in `dir/compiled`, when not null) or `{"cancel": id}`; out, `{"id",
 * "status": "exited"|"timeout"|"cancelled", "code", "signal", "ms"}`. The child writes its stdout and stderr to
 * `dir/stdout` and `dir/stderr`, and prints `token` on its last line only when the program ran to its end: an answer
 * that calls `exit(0)` or `os._exit(0)` early fails, as upstream counts SystemExit a failure. The server exits when
 * its stdin closes, killing what it still runs.
 */
export const FORK_SERVER = String.raw`
import gc, json, marshal, os, resource, select, signal, sys, time
# What the problems import, imported once here rather than in every child; a child still imports anything else.
import collections, functools, hashlib, itertools, math, re, string, typing

# A finished child wakes the loop at once. On Linux its pidfd turns readable: no signal handler, which every child
# would have to reset (resetting one costs a child dozens of copy-on-write faults). Elsewhere SIGCHLD writes to a
# pipe that the loop polls.
def has_pidfd():
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except (AttributeError, OSError):
        return False

PIDFD = has_pidfd()
# Children without a pidfd (pidfd_open failed, say out of descriptors): the loop polls for them instead.
polled = 0
# poll, not select: a pidfd per running check may go past select's 1024.
poller = select.poll()
poller.register(0, select.POLLIN)
if not PIDFD:
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    poller.register(wake_r, select.POLLIN)

# Past the highest descriptor a child may have inherited (close_range makes the span free on Linux).
soft_nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
FD_LIMIT = soft_nofile if 0 < soft_nofile <= 65536 else 65536

def child(req):
    if not PIDFD:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    d = req["dir"]
    os.chdir(d)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        f = os.open(os.path.join(d, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(f, fd)
        os.close(f)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # No descriptor of the server's is the check's: not its pipes, not a sibling's pidfd (which would let it signal
    # that sibling), not one the server inherited.
    os.closerange(3, FD_LIMIT)
    # sys.stdin, sys.stdout and sys.stderr now read and write those files: the server writes its replies with
    # os.write and never reads through sys.stdin, so no buffer carries anything over (new objects would cost a child
    # dozens of copy-on-write faults).
    def cap(kind, limit):
        try:
            resource.setrlimit(kind, (limit, limit))
        except (ValueError, OSError):
            pass
    cap(resource.RLIMIT_AS, req["memory"])
    cap(resource.RLIMIT_FSIZE, 16 << 20)
    cap(resource.RLIMIT_CORE, 0)
    # A backstop should the server die: a runaway loop still ends on its CPU time.
    cap(resource.RLIMIT_CPU, int(req["timeout"]) + 2)
    os.environ["HOME"] = d
    os.environ["TMPDIR"] = d
    token = req["token"]
    path = os.path.join(d, req["program"])
    compiled = req["compiled"]
    del req
    try:
        # Compiled ahead by the compile server (compiling here would cost a copy-on-write fault per page it
        # touches); a source it could not compile is compiled here, to fail in upstream's words.
        if compiled:
            # os-level reads: a file object would be a few more objects, and pages, to copy.
            fd = os.open(os.path.join(d, compiled), os.O_RDONLY)
            data = b""
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                data += chunk
            os.close(fd)
            code = marshal.loads(data)
            del data
        else:
            with open(path, encoding="utf-8") as f:
                code = compile(f.read(), path, "exec")
        exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
    except BaseException as e:
        msg = str(e)[:500]
        sys.stderr.write("failed: " + type(e).__name__ + (": " + msg if msg else "") + "\n")
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    os.write(1, ("\n" + token + "\n").encode())
    os._exit(0)

running = {}
pending = b""
def number(n):
    return b"null" if n is None else b"%d" % n

def reply(id_, status, code, sig, ms):
    # Formatted by hand and written with os.write: after every fork, each page the server writes is copied, and the
    # json encoder and sys.stdout's buffers would be a few dozen more of them per check.
    line = b'{"id": %d, "status": "%s", "code": %s, "signal": %s, "ms": %d}\n' % (
        id_, status, number(code), number(sig), ms)
    while line:
        line = line[os.write(1, line):]

def kill(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass

while True:
    wait = None
    if running:
        wait = max(0.0, min(r["deadline"] for r in running.values()) - time.monotonic())
        if polled:
            wait = min(wait, 0.05)
    ready = [fd for fd, _ in poller.poll(None if wait is None else wait * 1000)]
    if not PIDFD and wake_r in ready:
        try:
            while os.read(wake_r, 4096):
                pass
        except BlockingIOError:
            pass
    if 0 in ready:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            for pid in running:
                kill(pid)
            os._exit(0)
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if not line.strip():
                continue
            req = json.loads(line)
            if "cancel" in req:
                for pid, r in running.items():
                    if r["id"] == req["cancel"]:
                        r["status"] = b"cancelled"
                        kill(pid)
                continue
            # Objects that exist now are never collected in a child, whose collections would otherwise touch (and
            # copy) every page of them.
            gc.freeze()
            pid = os.fork()
            if pid == 0:
                try:
                    child(req)
                finally:
                    os._exit(70)
            now = time.monotonic()
            running[pid] = {"id": req["id"], "start": now, "deadline": now + req["timeout"], "status": b"exited"}
            if PIDFD:
                try:
                    fd = os.pidfd_open(pid)
                    poller.register(fd, select.POLLIN)
                except OSError:
                    fd = None
                    polled += 1
                running[pid]["fd"] = fd
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        r = running.pop(pid, None)
        if r is None:
            continue
        if r.get("fd") is not None:
            poller.unregister(r["fd"])
            os.close(r["fd"])
        elif PIDFD:
            polled -= 1
        # What the answer left running in its group goes with it.
        kill(pid)
        reply(
            r["id"],
            r["status"],
            os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            round((time.monotonic() - r["start"]) * 1000),
        )
    now = time.monotonic()
    for pid, r in running.items():
        if r["status"] == b"exited" and now >= r["deadline"]:
            r["status"] = b"timeout"
            kill(pid)
`
