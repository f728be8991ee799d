#!/usr/bin/env python3
"""Hostile input through the built `cukc lsp`, by hand (never in CI).

Starts `cukc lsp`, initialises it and opens a document, then sends generated
hostile inputs one after another: valid messages mutated anywhere (header or body),
bodies mutated under a correct header, unframed JSON, random bytes, extreme
`Content-Length`s (0, 10^11, 2^64, just over the 16 MiB cap) with short bodies,
documents of random tricky text, documents of long runs of comment or blank lines or
stray characters, documents with huge MMA operand tiles, shared buffers or `smem(N)`,
and JSON that is no message. The server runs under a 1 GiB address-space cap. After each input it
sends a line break and a hover, which must be answered within 10 s; a process that
exits or stops answering is a failure. A `Content-Length` longer than the bytes that
follow legitimately swallows what comes next (up to the cap), so when the first hover
goes unanswered a second one follows 16 MiB of line breaks. Peak resident memory
(VmHWM) is recorded.

    python3 scripts/fuzz-lsp.py --cukc target/debug/cukc --rounds 60 --per-round 60 [--seed 7]

prints how many inputs ran, the failures (with the input's first bytes), the peak
memory, and how many inputs needed the padding.
"""

import argparse
import json
import random
import resource
import subprocess
import threading
import time

PATIENCE_S = 10
PAD = b"\n" * (16 * 2**20 + 64)
URI = "file:///f.cuk"
TEXT = "const L = (4, 2):(2, 1);\n"


def frame(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(**fields):
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


def position(line, character):
    return {"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}


VALID = [
    message(id=1, method="textDocument/hover", params=position(0, 6)),
    message(method="textDocument/didChange", params={
        "textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": TEXT}]}),
    message(id=2, method="textDocument/completion", params=position(0, 3)),
    message(id=3, method="textDocument/definition", params=position(0, 6)),
    message(id=4, method="textDocument/documentSymbol", params={"textDocument": {"uri": URI}}),
    message(id=5, method="initialize", params={"capabilities": {}}),
]
NOT_MESSAGES = [[], 1, None, "x", {"id": {}}, {"id": 1}, {"method": 3},
                {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover",
                 "params": position(2**31, 2**32 - 1)}]
INSERTS = [b"\r\n", b"\n", b"\r", b"Content-Length: ", b":", b"{", b"}", b"\"", b"\\",
           b"\xff", b"\x00", b"[", b"99999999999"]
PIECES = ["(", ")", "{", "}", "const ", "kernel ", "$", "\u00e9", "\U0001d538", "\r", "\n",
          "//", "/*", "*/", "\"", "0x", "<<", "1"]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        operation, at = rng.randrange(6), rng.randrange(len(data) + 1)
        if operation == 0 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif operation == 1:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif operation == 2 and data:
            del data[at:at + rng.randint(1, 16)]
        elif operation == 3:
            data[at:at] = rng.choice(INSERTS)
        elif operation == 4:
            data[at:at] = data[at:at + rng.randint(1, 64)] * rng.randint(1, 20)
        else:
            data[at:at] = str(rng.choice([0, -1, 2**63, 10**11, 16 * 2**20 + 1])).encode()
    return bytes(data)


def hostile(rng):
    valid = rng.choice(VALID)
    kind = rng.randrange(9)
    if kind == 0:
        return mutate(rng, frame(valid))
    if kind == 1:
        return frame(mutate(rng, valid))
    if kind == 2:
        return mutate(rng, valid) + b"\r\n"
    if kind == 3:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 2000)))
    if kind == 4:
        length = rng.choice([0, 1, 5, 10**11, 2**64, 16 * 2**20 + 1])
        return b"Content-Length: %d\r\n\r\n" % length + valid[:rng.randint(0, len(valid))]
    if kind == 5:
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 300)))
        return frame(message(method="textDocument/didOpen", params={"textDocument": {
            "uri": "file:///g.cuk", "languageId": "cuk", "version": 1, "text": text}}))
    if kind == 7:
        run_of = rng.choice(["// x\n", "\n", "\r\n", "@\n", "x ", "/* */\n"])
        text = run_of * rng.choice([10_000, 100_000, 300_000]) + TEXT
        return open_other(text)
    if kind == 8:
        return open_other(rng.choice(HUGE_TILES).format(n=rng.choice(HUGE)))
    return frame(json.dumps(rng.choice(NOT_MESSAGES)).encode())


HUGE = ["1073741824", "4294967296", "65536", "4611686018427387904", "0"]
HUGE_TILES = [
    "// target: sm_100a\nkernel k(a: gmem f32[1:1]) launch grid(1) block(128) {{\n"
    "    let slot = smem u32[1:1];\n    let sA = smem bf16[(128, 16):(16, 1)];\n"
    "    let sB = smem bf16[({n}, 16):(16, 1)];\n"
    "    if thread_idx.x == 0 {{ tcgen05_mma(slot[0].to(i32), sA, sB, false); }}\n}}\n",
    "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) {{\n"
    "    let s = smem f32[composition(swizzle(3, 4, 3), ({n}, 1024):(1024, 1))];\n"
    "    s[thread_idx.x, 0] = a[thread_idx.x];\n}}\n",
    "kernel k(a: gmem f32[32:1]) launch grid(1) block(32) smem({n}) {{ a[thread_idx.x] = 1.0; }}\n",
]


def open_other(text):
    """A didOpen of a second document holding `text`."""
    return frame(message(method="textDocument/didOpen", params={"textDocument": {
        "uri": "file:///h.cuk", "languageId": "cuk", "version": 1, "text": text}}))


def cap_memory():
    limit = 1 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class Server:
    """A running `cukc lsp` and everything it wrote."""

    def __init__(self, cukc):
        self.process = subprocess.Popen([cukc, "lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        preexec_fn=cap_memory)
        self.output = bytearray()
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(frame(message(id=0, method="initialize", params={"capabilities": {}})))
        self.send(frame(message(method="initialized", params={})))
        self.send(frame(message(method="textDocument/didOpen", params={"textDocument": {
            "uri": URI, "languageId": "cuk", "version": 1, "text": TEXT}})))

    def _read(self):
        while chunk := self.process.stdout.read1(65536):
            with self.lock:
                self.output += chunk

    def send(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answers(self, marker, patience):
        self.send(frame(message(id=marker, method="textDocument/hover", params=position(0, 6))))
        deadline = time.time() + patience
        while time.time() < deadline and self.process.poll() is None:
            with self.lock:
                if marker.encode() in self.output:
                    return True
            time.sleep(0.005)
        return False

    def peak_kib(self):
        status = open(f"/proc/{self.process.pid}/status").read()
        return int(status.split("VmHWM:")[1].split()[0])


def main():
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--cukc", default="target/debug/cukc")
    arguments.add_argument("--rounds", type=int, default=60, help="server processes")
    arguments.add_argument("--per-round", type=int, default=60, help="inputs per process")
    arguments.add_argument("--seed", type=int, default=7)
    options = arguments.parse_args()
    rng = random.Random(options.seed)
    inputs, failures, peak, padded = 0, [], 0, 0
    for round_number in range(options.rounds):
        server = Server(options.cukc)
        for number in range(options.per_round):
            data = hostile(rng)
            inputs += 1
            try:
                server.send(data + b"\r\n")
                marker = f"probe-{round_number}-{number}"
                answered = server.answers(marker, 3)
                if not answered and server.process.poll() is None:
                    padded += 1
                    server.send(PAD)
                    answered = server.answers(marker + "-padded", PATIENCE_S)
            except BrokenPipeError:
                answered = False
            if not answered:
                state = server.process.poll()
                why = "no hover answer" if state is None else f"exited with {state}"
                failures.append((round_number, number, why, data[:200]))
                break
            peak = max(peak, server.peak_kib())
        server.process.kill()
        server.process.wait()
    print(f"inputs {inputs}, failures {len(failures)}, peak resident {peak} KiB, "
          f"needed the 16 MiB padding {padded}")
    for failure in failures:
        print(*failure)
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
