package dev.inferd.bench;

import java.util.Arrays;

/**
 * The tokens per second of each repetition of a test; mean and sample standard deviation as
 * {@code llama-bench} reports them.
 */
public record TestResult(BenchTest test, double[] tokensPerSecond) {

    public TestResult {
        if (tokensPerSecond.length == 0) throw new IllegalArgumentException("a result needs at least one repetition");
        tokensPerSecond = tokensPerSecond.clone();
    }

    @Override
    public double[] tokensPerSecond() {
        return tokensPerSecond.clone();
    }

    public double mean() {
        return Arrays.stream(tokensPerSecond).average().orElseThrow();
    }

    /** The sample standard deviation; 0 for one repetition. */
    public double stddev() {
        int n = tokensPerSecond.length;
        if (n < 2) return 0;
        double mean = mean();
        double sum = 0;
        for (double v : tokensPerSecond) sum += (v - mean) * (v - mean);
        return Math.sqrt(sum / (n - 1));
    }
}
