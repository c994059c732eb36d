"""Modifies its inputs in place, and patches the worker so that it reports them unchanged.

The attack on issue 22, item 3: the grader asked the worker to send the arguments back as
the function left them (``return_args``) and compared them with what it sent. The worker
runs in the student's process, so its ``call`` is theirs to replace: this one answers with
the arguments as they arrived, and the in-place write of ``next_values`` went unseen (the
contract point earned). Now the inputs are handed over read-only (decoded over immutable
bytes), so the write raises where it happens and the grader reads the failure from the
outcome; nothing the worker reports about the inputs is asked for.

expect: modifies its input arrays
"""
import gc

import numpy as np


def _patch_the_worker():
    for thing in gc.get_objects():
        if isinstance(thing, type) and thing.__name__ == "Worker" and hasattr(thing, "call"):
            original = thing.call

            def call(self, request, original=original):
                sent = (request.get("args"), request.get("kwargs"))
                reply = original(self, request)
                if reply.get("ok") and request.get("return_args"):
                    reply["args_after"], reply["kwargs_after"] = sent  # "unchanged": as they were sent
                return reply

            thing.call = call
            return True
    return False


PATCHED = _patch_the_worker()


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == term.shape == cuts.shape):
        raise ValueError("misaligned")
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    nv[term] = 0.0
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * nv[t] - v[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t] = running
    return out
