package dev.inferd.server.cloud.usage;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

/**
 * What a request costs, in US dollars, in exact decimal arithmetic. Transcription: 0.02 per minute of audio,
 * rounded up to the nearest second, so cost = ceil(seconds) x 0.02 / 60. Text: a price per million prompt tokens
 * and per million completion tokens for each model (none configured: free).
 *
 * <p>0.02 / 60 per second has no finite decimal expansion; a cost is kept to {@value #SCALE} decimal places
 * (rounded half up), far below a cent on any bill.
 */
public final class Pricing {

    public static final int SCALE = 10;
    public static final BigDecimal TRANSCRIPTION_PER_MINUTE = new BigDecimal("0.02");
    private static final BigDecimal SECONDS_PER_MINUTE = BigDecimal.valueOf(60);
    private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);

    /** Prices per million tokens. */
    public record TokenPrice(BigDecimal promptPerMillion, BigDecimal completionPerMillion) {
        public static final TokenPrice FREE = new TokenPrice(BigDecimal.ZERO, BigDecimal.ZERO);
    }

    private final Map<String, TokenPrice> tokenPrices;

    public Pricing(Map<String, TokenPrice> tokenPrices) {
        this.tokenPrices = Map.copyOf(tokenPrices);
    }

    public static Pricing free() {
        return new Pricing(Map.of());
    }

    /** ceil(seconds) x 0.02 / 60, for audio of {@code audioMillis} milliseconds. */
    public static BigDecimal transcription(long audioMillis) {
        long billedSeconds = Math.ceilDiv(audioMillis, 1000L);
        return BigDecimal.valueOf(billedSeconds).multiply(TRANSCRIPTION_PER_MINUTE)
                .divide(SECONDS_PER_MINUTE, SCALE, RoundingMode.HALF_UP);
    }

    public BigDecimal tokens(String model, long promptTokens, long completionTokens) {
        TokenPrice price = model == null ? TokenPrice.FREE : tokenPrices.getOrDefault(model, TokenPrice.FREE);
        return price.promptPerMillion().multiply(BigDecimal.valueOf(promptTokens))
                .add(price.completionPerMillion().multiply(BigDecimal.valueOf(completionTokens)))
                .divide(MILLION, SCALE, RoundingMode.HALF_UP);
    }

    /** A request's cost: its tokens, plus its audio when it is a transcription. */
    public BigDecimal cost(String model, long promptTokens, long completionTokens, long audioMillis) {
        BigDecimal cost = tokens(model, promptTokens, completionTokens);
        return audioMillis > 0 ? cost.add(transcription(audioMillis)) : cost;
    }
}
