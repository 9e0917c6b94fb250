package dev.inferd.app.loadtest;

import java.util.Arrays;
import java.util.Collection;

/** Nearest-rank percentiles of a set of durations. */
final class Percentiles {

    private final long[] sorted;

    Percentiles(Collection<Long> values) {
        sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    boolean isEmpty() {
        return sorted.length == 0;
    }

    /** The smallest value with at least {@code p} of all values at or below it; NaN when there are none. */
    double at(double p) {
        if (sorted.length == 0) return Double.NaN;
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    @Override
    public String toString() {
        return Arrays.toString(sorted);
    }
}
