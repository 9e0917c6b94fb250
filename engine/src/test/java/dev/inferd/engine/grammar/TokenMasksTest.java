package dev.inferd.engine.grammar;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class TokenMasksTest {
    @Test
    void disallowedLogitsBecomeNegativeInfinityAndTheOthersStay() {
        int vocab = 64 * 5 + 13;
        var random = new SplittableRandom(3);
        long[] mask = {-1L, 0L, random.nextLong(), 0x8000_0000_0000_0001L, 0L, random.nextLong()};
        float[] logits = new float[vocab + 7];
        for (int i = 0; i < logits.length; i++) logits[i] = i;
        TokenMasks.apply(mask, logits, 7, vocab);
        for (int i = 0; i < 7; i++) assertThat(logits[i]).isEqualTo(i);
        int allowed = 0;
        for (int t = 0; t < vocab; t++) {
            boolean bit = (mask[t >>> 6] & 1L << t) != 0;
            if (bit) allowed++;
            assertThat(logits[7 + t]).as("token %d", t).isEqualTo(bit ? 7f + t : Float.NEGATIVE_INFINITY);
        }
        assertThat(TokenMasks.count(mask, vocab)).isEqualTo(allowed);
    }
}
