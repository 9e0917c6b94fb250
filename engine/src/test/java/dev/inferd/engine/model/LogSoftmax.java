package dev.inferd.engine.model;

/** Natural-log softmax of one logits row, in double, for comparing with reference log-probabilities. */
final class LogSoftmax {
    private LogSoftmax() {
    }

    static double[] of(float[] logits, int offset, int length) {
        double max = Double.NEGATIVE_INFINITY;
        for (int t = 0; t < length; t++) max = Math.max(max, logits[offset + t]);
        double sum = 0;
        for (int t = 0; t < length; t++) sum += Math.exp(logits[offset + t] - max);
        double logSum = max + Math.log(sum);
        double[] out = new double[length];
        for (int t = 0; t < length; t++) out[t] = logits[offset + t] - logSum;
        return out;
    }
}
