"""Count framework signals during a run: log records (retracing warnings, recompile-limit hits)
and running counters (torch's cudagraph skips)."""
import contextlib
import logging


class _Counter(logging.Handler):
    def __init__(self, text):
        super().__init__(logging.DEBUG)
        self.text, self.count = text, 0

    def emit(self, record):
        if self.text in record.getMessage():
            self.count += 1


@contextlib.contextmanager
def count_log_signals(signals):
    """Yield {name: count} filled while the block runs; `signals` maps name -> (logger, text), or
    name -> a callable reading a running counter (the block's increase is counted)."""
    running = {name: (read, read()) for name, read in signals.items() if callable(read)}
    handlers = {name: (logging.getLogger(signal[0]), _Counter(signal[1]))
                for name, signal in signals.items() if name not in running}
    for logger, handler in handlers.values():
        logger.addHandler(handler)
    counts = {}
    try:
        yield counts
    finally:
        for name, (logger, handler) in handlers.items():
            logger.removeHandler(handler)
            counts[name] = handler.count
        for name, (read, start) in running.items():
            counts[name] = read() - start
