package dev.inferd.bench;

/**
 * The fastest decode the memory allows: every weight is read once per token, so tokens per second
 * cannot exceed {@code bandwidth / bytesPerToken}.
 *
 * @param bandwidth     read bandwidth, bytes per second
 * @param bytesPerToken weight bytes read per decoded token ({@link ModelFootprint#bytesPerToken()})
 */
public record DecodeLimit(double bandwidth, long bytesPerToken) {

    public DecodeLimit {
        if (!(bandwidth > 0) || bytesPerToken <= 0) {
            throw new IllegalArgumentException("bandwidth and bytes per token must be positive");
        }
    }

    public double tokensPerSecond() {
        return bandwidth / bytesPerToken;
    }

    /** The share of the limit that {@code tokensPerSecond} reaches. */
    public double fraction(double tokensPerSecond) {
        return tokensPerSecond / tokensPerSecond();
    }
}
