"""Count framework log records (retracing warnings, recompile-limit hits) during a run."""
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
    """Yield {name: count} filled while the block runs; `signals` maps name -> (logger, text)."""
    handlers = {name: (logging.getLogger(logger), _Counter(text))
                for name, (logger, text) in signals.items()}
    for logger, handler in handlers.values():
        logger.addHandler(handler)
    counts = {}
    try:
        yield counts
    finally:
        for name, (logger, handler) in handlers.items():
            logger.removeHandler(handler)
            counts[name] = handler.count
