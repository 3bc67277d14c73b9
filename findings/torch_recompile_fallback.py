"""torch.compile(dynamic=False) past its recompile limit: later input sizes run eagerly, no error.

Standalone: needs only torch. Exit 1 while a function compiled with dynamic=False, called at more
input sizes than torch._dynamo.config.recompile_limit, compiles `limit` graphs, then answers every
later size eagerly (right values, no exception, one log warning); exit 0 when torch raises or keeps
compiling instead. The lengths suite met it on the decoder (suites/test_lengths.py,
findings/torch_recompile_fallback.md). backend="eager" keeps it fast: the fallback is Dynamo's,
whatever compiles the graph.
Usage: python torch_recompile_fallback.py [--sizes 12] [--dynamic false|none]
"""
import argparse
import logging
import sys

import torch
import torch._dynamo
import torch._dynamo.testing


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, default=12)
    parser.add_argument("--dynamic", choices=("false", "none"), default="false")
    args = parser.parse_args(argv)
    limit = torch._dynamo.config.recompile_limit
    counter = torch._dynamo.testing.CompileCounter()
    step = torch.compile(lambda x: (x * 2).sum(), backend=counter,
                         dynamic=False if args.dynamic == "false" else None)
    caught = _Warnings()
    logging.getLogger("torch._dynamo.convert_frame").addHandler(caught)
    right, raised = True, None
    try:
        for n in range(1, args.sizes + 1):
            right &= float(step(torch.ones(n))) == 2.0 * n
    except Exception as error:  # a fix may refuse instead of falling back
        raised = error
    warned = [m for m in caught.messages if "recompile_limit" in m or "hit config." in m]
    fallback = raised is None and counter.frame_count == limit and args.sizes > limit
    print(f"torch {torch.__version__}, dynamic={args.dynamic}: {args.sizes} sizes, recompile_limit "
          f"{limit}, compiled {counter.frame_count} graphs; results right: {right}; error: "
          f"{raised!r}; warnings logged: {len(warned)}")
    if fallback:
        print(f"FALLBACK: sizes {limit + 1}-{args.sizes} ran eagerly without an error "
              f"({len(warned)} log warning{'s' * (len(warned) != 1)})")
        return 1
    print("NO SILENT FALLBACK: torch raised or kept compiling")
    return 0


if __name__ == "__main__":
    sys.exit(main())
