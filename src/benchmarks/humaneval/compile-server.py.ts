/**
 * The compiler beside the fork server: it turns each check program into a marshalled code object the forked child
 * only has to load. Compiling in a freshly forked child costs it a copy-on-write fault on every page the compiler
 * touches, and compiling in the fork server costs the server the same faults after every fork; this process never
 * forks, so its pages stay its own. Compiling runs none of the program, and the optimizer bounds what it folds.
 *
 * Protocol, one JSON object per line: in, `{"id", "source", "target"}`; out, `{"id", "compiled": true}` once
 * `target` holds the code, or `{"id", "compiled": false}` when the source is too large or does not compile: the
 * child then compiles it itself, and fails in upstream's words.
 */
export const COMPILE_SERVER = String.raw`
import json, marshal, os, sys
MAX_SOURCE = 1 << 20
for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    ok = False
    try:
        if os.path.getsize(req["source"]) <= MAX_SOURCE:
            with open(req["source"], encoding="utf-8") as f:
                code = compile(f.read(), req["source"], "exec")
            with open(req["target"], "wb") as f:
                marshal.dump(code, f)
            ok = True
            del code
    except Exception:
        pass
    sys.stdout.write(json.dumps({"id": req["id"], "compiled": ok}) + "\n")
    sys.stdout.flush()
`
