package dev.inferd.server.cloud;

import dev.inferd.server.cloud.ratelimit.RateDecision;
import dev.inferd.server.cloud.usage.Pricing;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Billing arithmetic: ceil(seconds) x 0.02 / 60 for audio, per-million prices for tokens, in exact decimals. */
class PricingTest {

    @Test
    void transcriptionIsBilledPerSecondRoundedUp() {
        assertThat(Pricing.transcription(60_000)).isEqualByComparingTo("0.02");
        assertThat(Pricing.transcription(59_001)).isEqualByComparingTo("0.02");   // 59.001 s bills as 60 s
        assertThat(Pricing.transcription(61_200)).isEqualByComparingTo("0.0206666667"); // 62 s
        assertThat(Pricing.transcription(1)).isEqualByComparingTo("0.0003333333");  // 1 s
        assertThat(Pricing.transcription(0)).isEqualByComparingTo("0");
        assertThat(Pricing.transcription(3_600_000)).isEqualByComparingTo("1.2");   // an hour
        assertThat(Pricing.transcription(61_200).scale()).isEqualTo(Pricing.SCALE);
    }

    @Test
    void tokensArePricedPerModelAndFreeByDefault() {
        var pricing = new Pricing(Map.of("big", new Pricing.TokenPrice(new BigDecimal("0.50"), new BigDecimal("1.50"))));
        assertThat(pricing.tokens("big", 1_000, 2_000)).isEqualByComparingTo("0.0035");
        assertThat(pricing.tokens("big", 1, 0)).isEqualByComparingTo("0.0000005");
        assertThat(pricing.tokens("small", 1_000_000, 1_000_000)).isEqualByComparingTo("0");
        assertThat(pricing.cost("big", 1_000, 2_000, 61_200)).isEqualByComparingTo("0.0241666667");
    }

    @Test
    void resetDurationsAreWrittenAsOpenAiDoes() {
        assertThat(RateDecision.goDuration(0)).isEqualTo("0s");
        assertThat(RateDecision.goDuration(16_666_667)).isEqualTo("17ms");
        assertThat(RateDecision.goDuration(1_200_000_000L)).isEqualTo("1.2s");
        assertThat(RateDecision.goDuration(2_000_000_000L)).isEqualTo("2s");
        assertThat(RateDecision.goDuration(360_000_000_000L)).isEqualTo("6m0s");
    }
}
