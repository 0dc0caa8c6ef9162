"""dpviz benchmarks: run ``python -m benchmarks`` (or ``make bench``)."""
